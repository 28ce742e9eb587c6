// Rebuild: 100,000 events replayed into fresh tables equal the live read model; the old tables answer
// until the swap; a rebuild racing live writes hands over to the live runner without a gap.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { ProjectionEngine } from '../../src/projections/engine.ts';
import { listStatuses } from '../../src/projections/checkpoints.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { CheckpointWaiter } from '../../src/projections/waiter.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { appendCounted, countingProjector, type CountingOptions, installProjectors, tableRows, timesApplied } from './fixtures.ts';

interface Ctx {
  db: TestDatabase;
  store: PostgresEventStore;
  waiter: CheckpointWaiter;
  engine: ProjectionEngine;
}

const log = createLogger('silent');
const hooks: CountingOptions = {};
const rebuilt = countingProjector('rb', hooks);
// The same projector under other table names, never rebuilt: what the live read model must equal.
const twin = countingProjector('twin');
const EVENTS = 100_000;

const test = suite<Ctx>('Projection rebuild');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('projection_rebuild');
  ctx.store = new PostgresEventStore(ctx.db.pool, ctx.db.url);
  await installProjectors(ctx.db.pool, rebuilt, twin);
  ctx.waiter = new CheckpointWaiter(ctx.db.pool, ctx.db.url);
  await ctx.waiter.listen();
  ctx.engine = new ProjectionEngine(ctx.db.pool, ctx.store, [rebuilt, twin], log, ctx.waiter, { batchSize: 2000 });
  ctx.engine.start();
});
test.after(async (ctx) => {
  await ctx.engine.stop();
  await ctx.waiter.close();
  await ctx.store.close();
  await ctx.db.drop();
});

async function snapshot(ctx: Ctx, name: string) {
  return {
    applied: await tableRows(ctx.db.pool, `${name}_applied`, 'event_id'),
    streams: await tableRows(ctx.db.pool, `${name}_streams`, 'stream'),
  };
}

test('a rebuild of 100,000 events leaves the read model identical to the live one', async (ctx) => {
  const head = await appendCounted(ctx.store, EVENTS, { per: 500, streams: 50 });
  assert.ok(await ctx.waiter.waitFor(['rb', 'twin'], head, 120_000), 'live read models caught up');
  const live = await snapshot(ctx, 'rb');
  assert.is(live.applied.length, EVENTS);

  let reported = 0;
  const position = await rebuildProjector(ctx.db.pool, ctx.store, rebuilt, (done) => (reported = done));
  assert.equal(position, head);
  assert.is(reported, EVENTS, 'progress reaches the total');
  assert.equal(await snapshot(ctx, 'rb'), live);
  const status = (await listStatuses(ctx.db.pool)).find((s) => s.name === 'rb');
  assert.equal(status?.position, head);
  assert.is(status?.eventsApplied, EVENTS);
});

test('the old tables keep answering until the swap', async (ctx) => {
  // A row only the old tables have: a rebuild does not produce it.
  await ctx.db.pool.query(`INSERT INTO rb_streams (stream, events, last_type, total) VALUES ('only-in-old-tables', 1, 'X', 0)`);
  let during: unknown[] | null = null;
  // The rebuild waits for this read, made mid-replay from another connection as the API would.
  hooks.beforeWrite = async () => {
    during ??= (await ctx.db.pool.query(`SELECT stream FROM rb_streams WHERE stream = 'only-in-old-tables'`)).rows;
  };
  try {
    await rebuildProjector(ctx.db.pool, ctx.store, rebuilt);
  } finally {
    hooks.beforeWrite = undefined;
  }
  assert.equal(during, [{ stream: 'only-in-old-tables' }], 'reads during the replay hit the old tables');
  const { rows } = await ctx.db.pool.query(`SELECT stream FROM rb_streams WHERE stream = 'only-in-old-tables'`);
  assert.equal(rows, [], 'after the swap the rebuilt tables answer');
});

test('a rebuild racing live appends hands over to the live runner: nothing lost, nothing twice', async (ctx) => {
  const writing = appendCounted(ctx.store, 5000, { per: 25, streams: 30, prefix: 'race' });
  await rebuildProjector(ctx.db.pool, ctx.store, rebuilt);
  const last = await writing;
  assert.ok(await ctx.waiter.waitFor(['rb', 'twin'], last, 60_000));
  assert.equal(await timesApplied(ctx.db.pool, 'rb'), { events: EVENTS + 5000, maxTimes: 1 });
  assert.equal(await snapshot(ctx, 'rb'), await snapshot(ctx, 'twin'));
});

// Both used the one side schema: the second dropped the first's half-built tables (the first then failed, "schema
// rebuild_rb does not exist", or wrote through its search path to the next in line).
test('two rebuilds of one projector at once take turns: both finish, and the read model equals the live one', async (ctx) => {
  hooks.beforeWrite = () => new Promise((resolve) => setTimeout(resolve, 20));
  try {
    const results = await Promise.allSettled([rebuildProjector(ctx.db.pool, ctx.store, rebuilt), rebuildProjector(ctx.db.pool, ctx.store, rebuilt)]);
    assert.equal(results.map((r) => (r.status === 'fulfilled' ? 'rebuilt' : String(r.reason))), ['rebuilt', 'rebuilt']);
  } finally {
    hooks.beforeWrite = undefined;
  }
  assert.equal(await timesApplied(ctx.db.pool, 'rb'), { events: EVENTS + 5000, maxTimes: 1 });
  assert.equal(await snapshot(ctx, 'rb'), await snapshot(ctx, 'twin'));
});

test.run();
