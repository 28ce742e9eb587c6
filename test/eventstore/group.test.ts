// Group commit on PostgreSQL: many appends of new streams in one transaction, each written or refused alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { withTransaction } from '../../src/db/pool.ts';
import { migrationsIn } from '../../src/db/migrate.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { NewStreamsAppend } from '../../src/eventstore/postgres-group.ts';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

const test = suite<{ db: TestDatabase; store: PostgresEventStore }>('EventStore (postgres): a group of new-stream appends');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('es_group');
  ctx.store = new PostgresEventStore(ctx.db.pool, ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

const append = (org: string, ...streams: string[]): NewStreamsAppend => ({
  requests: streams.map((stream) => ({ stream, events: [{ type: 'Made', data: { stream } }, { type: 'Kept', data: { n: 2 } }], expectedRevision: 'no_stream' as const })),
  metadata: { organizationId: org },
});

test('each member whose streams are all new is written with its own metadata; one with a taken stream leaves nothing', async ({ db, store }) => {
  await store.append('g1-taken', [{ type: 'Made', data: {} }], 'no_stream', { organizationId: 'x' });
  const results = await withTransaction(db.pool, (tx) => store.appendNewStreamsWithin(tx, [
    append('a', 'g1-a', 'g1-a2'),
    append('b', 'g1-b', 'g1-taken'),
    append('c', 'g1-c'),
  ]));
  assert.ok(results[0] && results[2]);
  assert.is(results[1], null);
  const a2 = await store.readStream('g1-a2');
  assert.equal(a2.map((e) => [e.type, e.revision, e.metadata.organizationId]), [['Made', 0n, 'a'], ['Kept', 1n, 'a']]);
  // A member's position is its last event's.
  assert.equal(results[0]!.position, a2[1].position);
  assert.is(results[0]!.nextExpectedRevision, 1n);
  assert.equal((await store.readStream('g1-c')).map((e) => e.metadata.organizationId), ['c', 'c']);
  // The refused member's new stream was claimed and given back: it does not exist, and can be appended.
  assert.equal(await store.readStream('g1-b'), []);
  await store.append('g1-b', [{ type: 'Made', data: {} }], 'no_stream', { organizationId: 'b' });
  assert.equal((await store.readStream('g1-taken')).length, 1);
});

test('two members asking for the same stream: the first is written, the second refused', async ({ db, store }) => {
  const results = await withTransaction(db.pool, (tx) => store.appendNewStreamsWithin(tx, [append('a', 'g2-shared', 'g2-a'), append('b', 'g2-b', 'g2-shared')]));
  assert.ok(results[0]);
  assert.is(results[1], null);
  assert.equal((await store.readStream('g2-shared')).map((e) => e.metadata.organizationId), ['a', 'a']);
  assert.equal(await store.readStream('g2-b'), []);
});

// The refused member had asked for the shared stream too; giving back its claims gave back the winner's claim of
// it, so the stream had events but no revision: the next append to it ('no_stream' or its revision) failed on a
// unique index (a 500 for a repeated POST /events), where a 'no_stream' one must be WrongExpectedVersionError.
test('a member refused for a stream another member won gives back none of the winner\'s streams', async ({ db, store }) => {
  const results = await withTransaction(db.pool, (tx) => store.appendNewStreamsWithin(tx, [append('a', 'g4-shared'), append('b', 'g4-shared', 'g4-b')]));
  assert.ok(results[0]);
  assert.is(results[1], null);
  const again = await store.append('g4-shared', [{ type: 'Made', data: {} }], 'no_stream', { organizationId: 'c' }).then(() => null, (e: unknown) => e);
  assert.instance(again, WrongExpectedVersionError);
  assert.is((again as WrongExpectedVersionError).actual, 1n);
  await store.append('g4-shared', [{ type: 'Next', data: {} }], 1n, { organizationId: 'a' });
  assert.equal((await store.readStream('g4-shared')).map((e) => e.type), ['Made', 'Kept', 'Next']);
  // And a later group asking for it finds it taken.
  const later = await withTransaction(db.pool, (tx) => store.appendNewStreamsWithin(tx, [append('d', 'g4-shared')]));
  assert.equal(later, [null]);
});

test('concurrent groups over the same streams in any order never lose or double an append', async ({ db, store }) => {
  const streams = Array.from({ length: 40 }, (_, i) => `g3-${i}`);
  const shuffled = (seed: number) => [...streams].sort((x, y) => ((x.charCodeAt(4) * seed) % 7) - ((y.charCodeAt(4) * seed) % 7));
  const groups = Array.from({ length: 8 }, (_, g) => shuffled(g + 1).map((s, i) => append(`w${g}`, s, `g3-own-${g}-${i}`)));
  const results = await Promise.all(groups.map((group) => withTransaction(db.pool, (tx) => store.appendNewStreamsWithin(tx, group))));
  const written = results.flat().filter((r) => r !== null).length;
  assert.is(written, streams.length, 'each shared stream written by exactly one member');
  for (const s of streams) assert.is((await store.readStream(s)).length, 2);
  const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM es_streams WHERE stream_id LIKE 'g3-own-%'`);
  assert.is(Number(rows[0].n), written, 'only the written members keep their own streams');
});

// Stores written before the fix hold such streams: the migration gives them their revision back.
test('the repair migration gives a stream with events and no revision its revision back', async ({ db, store }) => {
  await store.append('g5-damaged', [{ type: 'Made', data: {} }, { type: 'Kept', data: {} }], 'no_stream', { organizationId: 'a' });
  await db.pool.query(`DELETE FROM es_streams WHERE stream_id = 'g5-damaged'`);
  const repair = migrationsIn(path.resolve(import.meta.dirname, '../../src/eventstore/migrations')).find((m) => m.id.endsWith('stream_revisions_repair'))!;
  await db.pool.query(repair.sql);
  const { rows } = await db.pool.query<{ revision: string }>(`SELECT revision FROM es_streams WHERE stream_id = 'g5-damaged'`);
  assert.equal(rows, [{ revision: '1' }]);
  const again = await store.append('g5-damaged', [{ type: 'Made', data: {} }], 'no_stream', { organizationId: 'b' }).then(() => null, (e: unknown) => e);
  assert.instance(again, WrongExpectedVersionError);
});

test.run();
