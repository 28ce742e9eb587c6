import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';

const test = suite<{ db: TestDatabase; store: PostgresEventStore }>('EventStore (postgres): smoke');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('es_smoke');
  ctx.store = new PostgresEventStore(ctx.db.pool, ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

test('appends and reads back a stream', async ({ store }) => {
  const r = await store.append('s-1', [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }], 'no_stream', { organizationId: 'o1' });
  assert.is(r.nextExpectedRevision, 1n);
  const events = await store.readStream('s-1');
  assert.equal(events.map((e) => e.type), ['A', 'B']);
  await store.append('s-1', [{ type: 'C', data: {} }], 1n, { organizationId: 'o1' });
  try {
    await store.append('s-1', [{ type: 'D', data: {} }], 1n, { organizationId: 'o1' });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, WrongExpectedVersionError);
  }
  const all = await store.readAll();
  assert.is(all.length, 3);
});

test.run();
