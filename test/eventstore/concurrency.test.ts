// PostgreSQL store under concurrent writers: a live subscriber sees every event exactly once, in
// position order, including events of transactions that took a low position and committed late.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { START, type RecordedEvent } from '../../src/eventstore/port.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { assertAscending } from './contract.ts';
import { collect } from './contract-subscribe.ts';

const WRITERS = 8;
const PER_WRITER = 2000;
const STREAMS = 200;
const META = { organizationId: 'org-c' };

interface Ctx {
  db: TestDatabase;
  pool: Pool;
  store: PostgresEventStore;
}

const test = suite<Ctx>('EventStore (postgres): concurrent writers and a live subscriber');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('es_concurrency');
  ctx.pool = createPool(ctx.db.url, 24);
  ctx.store = new PostgresEventStore(ctx.pool, ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.pool.end();
  await ctx.db.drop();
});

/** Appends `total` events in small groups to random streams; one group in five commits late on purpose. */
async function writer(store: PostgresEventStore, pool: Pool, total: number, ids: string[]): Promise<void> {
  let written = 0;
  while (written < total) {
    const count = Math.min(total - written, 1 + Math.floor(Math.random() * 4));
    const events = Array.from({ length: count }, () => ({ id: randomUUID(), type: 'Tick', data: { w: written } }));
    const request = { stream: `s-${Math.floor(Math.random() * STREAMS)}`, events, expectedRevision: 'any' as const };
    if (Math.random() < 0.2) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await store.appendWithin(client, request, META);
        await sleep(Math.random() * 15);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    } else {
      await store.append(request.stream, events, 'any', META);
    }
    ids.push(...events.map((e) => e.id));
    written += count;
  }
}

test('8 writers x 2,000 events: each seen once, in position order, revisions contiguous', async ({ store, pool }) => {
  const c = collect(store, START, () => true, { batchSize: 300 });
  const ids: string[] = [];
  await Promise.all(Array.from({ length: WRITERS }, () => writer(store, pool, PER_WRITER, ids)));
  // A sentinel appended after every writer finished: once it arrives, everything before it has too.
  await store.append('sentinel', [{ type: 'Sentinel', data: {} }], 'no_stream', META);
  await c.until(WRITERS * PER_WRITER + 1, 120_000);
  await c.subscription.stop();

  const seen = c.seen;
  assert.is(seen.length, WRITERS * PER_WRITER + 1);
  assert.is(seen[seen.length - 1].stream, 'sentinel');
  assert.is(new Set(seen.map((e) => e.id)).size, seen.length, 'no event twice');
  assert.equal(new Set(seen.slice(0, -1).map((e) => e.id)), new Set(ids), 'every appended event');
  assertAscending(seen);
  const next = new Map<string, bigint>();
  for (const e of seen) {
    assert.is(e.revision, next.get(e.stream) ?? 0n, `${e.stream} revision in order`);
    next.set(e.stream, e.revision + 1n);
  }
});

async function lateCommit(ctx: Ctx, takeIdFirst: boolean): Promise<{ before: RecordedEvent[]; after: RecordedEvent[] }> {
  const head = await ctx.store.headPosition();
  const late = await ctx.pool.connect();
  try {
    await late.query('BEGIN');
    if (takeIdFirst) await late.query('SELECT pg_current_xact_id()');
    else await ctx.store.appendWithin(late, { stream: `late-${randomUUID()}`, events: [{ type: 'Late', data: {} }], expectedRevision: 'no_stream' }, META);
    await ctx.store.append(`early-${randomUUID()}`, [{ type: 'Early', data: {} }], 'no_stream', META);
    if (takeIdFirst) await ctx.store.appendWithin(late, { stream: `late-${randomUUID()}`, events: [{ type: 'Late', data: {} }], expectedRevision: 'no_stream' }, META);
    const before = await ctx.store.readAll({ after: head });
    await late.query('COMMIT');
    return { before, after: await ctx.store.readAll({ after: head }) };
  } finally {
    late.release();
  }
}

test('a transaction with a lower row position that commits late holds readers back, then comes first', async (ctx) => {
  const { before, after } = await lateCommit(ctx, false);
  assert.equal(before, [], 'the committed later event is not visible before the older transaction ends');
  assert.equal(after.map((e) => e.type), ['Late', 'Early']);
  assertAscending(after);
});

test('a transaction that took its id first but wrote last is still ordered by its id, never skipped', async (ctx) => {
  const head = await ctx.store.headPosition();
  const c = collect(ctx.store, head, (s) => s.startsWith('late-') || s.startsWith('early-'));
  const { before, after } = await lateCommit(ctx, true);
  assert.equal(before, []);
  assert.equal(after.map((e) => e.type), ['Late', 'Early']);
  await c.until(2);
  await c.subscription.stop();
  assert.equal(c.seen.map((e) => e.type), ['Late', 'Early']);
});

test.run();
