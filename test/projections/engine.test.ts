// Projection engine on PostgreSQL: catch-up then live, a failing projector, read-your-writes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { positionToJson, type Position } from '../../src/eventstore/port.ts';
import { ProjectionEngine } from '../../src/projections/engine.ts';
import { listStatuses, type ProjectionStatus } from '../../src/projections/checkpoints.ts';
import { CheckpointWaiter } from '../../src/projections/waiter.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { appendCounted, countingProjector, installProjectors, timesApplied } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';

interface Ctx {
  db: TestDatabase;
  store: PostgresEventStore;
  waiter: CheckpointWaiter;
}

const log = createLogger('silent');
const test = suite<Ctx>('Projection engine: catch-up, live, failures, read-your-writes');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('projection_engine');
  ctx.store = new PostgresEventStore(ctx.db.pool, ctx.db.url);
  ctx.waiter = new CheckpointWaiter(ctx.db.pool, ctx.db.url);
  await ctx.waiter.listen();
});
test.after(async (ctx) => {
  await ctx.waiter.close();
  await ctx.store.close();
  await ctx.db.drop();
});

async function statusOf(ctx: Ctx, name: string): Promise<ProjectionStatus | undefined> {
  return (await listStatuses(ctx.db.pool)).find((s) => s.name === name);
}

test('catches up in batches from the start, then follows live appends, applying each event once', async (ctx) => {
  const projector = countingProjector('catchup');
  await installProjectors(ctx.db.pool, projector);
  const head = await appendCounted(ctx.store, 2500, { prefix: 'cu' });
  const engine = new ProjectionEngine(ctx.db.pool, ctx.store, [projector], log, ctx.waiter, { batchSize: 200 });
  engine.start();
  try {
    assert.ok(await ctx.waiter.waitFor(['catchup'], head, 30_000), 'caught up');
    assert.equal(await timesApplied(ctx.db.pool, 'catchup'), { events: 2500, maxTimes: 1 });
    let last: Position = head;
    for (let i = 0; i < 5; i++) last = (await ctx.store.append(`live-${i}`, [{ type: 'Counted', data: { n: i } }, { type: 'Ignored', data: {} }], 'no_stream', { organizationId: 'o' })).position;
    assert.ok(await ctx.waiter.waitFor(['catchup'], last, 10_000), 'followed live');
    assert.equal(await timesApplied(ctx.db.pool, 'catchup'), { events: 2505, maxTimes: 1 });
    const status = await statusOf(ctx, 'catchup');
    assert.is(status?.status, 'running');
    assert.is(status?.eventsApplied, 2505, 'only handled events count as applied');
    assert.equal(status?.position, last, 'checkpoint at the last event, handled or not');
  } finally {
    await engine.stop();
  }
});

test('a failing projector stops at the faulty event, shows the error, and resumes from it once fixed', async (ctx) => {
  let broken = true;
  let attempts = 0;
  const projector = countingProjector('faulty', {
    beforeWrite: async (_tx, events) => {
      if (broken && events.some((e) => e.type === 'Faulty')) {
        attempts++;
        throw new Error('cannot apply a Faulty event');
      }
    },
  });
  await installProjectors(ctx.db.pool, projector);
  const from = await ctx.store.headPosition();
  const good = await ctx.store.append('f-1', Array.from({ length: 5 }, (_, n) => ({ type: 'Counted', data: { n } })), 'no_stream', { organizationId: 'o' });
  const bad = await ctx.store.append('f-2', [{ type: 'Faulty', data: { n: 100 } }], 'no_stream', { organizationId: 'o' });
  const after = await ctx.store.append('f-3', Array.from({ length: 4 }, (_, n) => ({ type: 'Counted', data: { n } })), 'no_stream', { organizationId: 'o' });
  const [faultyEvent] = await ctx.store.readStream('f-2');
  await ctx.db.pool.query(`INSERT INTO projection_checkpoints (name, commit_position, prepare_position) VALUES ('faulty', $1, $2)`, [from.commit.toString(), from.prepare.toString()]);

  const engine = new ProjectionEngine(ctx.db.pool, ctx.store, [projector], log, ctx.waiter, { failedRetryMs: 50 });
  engine.start();
  try {
    await eventually('the projector retried the faulty event a few times', async () => attempts >= 3);
    const failed = await statusOf(ctx, 'faulty');
    assert.is(failed?.status, 'failed');
    assert.match(failed!.error, 'cannot apply a Faulty event');
    assert.match(failed!.error, faultyEvent.id);
    assert.equal(failed?.position, good.position, 'everything before the faulty event is applied');
    assert.equal(await timesApplied(ctx.db.pool, 'faulty'), { events: 5, maxTimes: 1 }, 'nothing after it is');
    assert.not.ok(await ctx.waiter.waitFor(['faulty'], bad.position, 100), 'read-your-writes gives up on a failed projector');

    broken = false;
    assert.ok(await ctx.waiter.waitFor(['faulty'], after.position, 10_000), 'resumed');
    assert.equal(await timesApplied(ctx.db.pool, 'faulty'), { events: 10, maxTimes: 1 });
    const resumed = await statusOf(ctx, 'faulty');
    assert.is(resumed?.status, 'running');
    assert.is(resumed?.error, '');
  } finally {
    await engine.stop();
  }
});

test('waitFor resolves through NOTIFY from another engine, and returns false on time-out', async (ctx) => {
  const projector = countingProjector('notified');
  await installProjectors(ctx.db.pool, projector);
  // The engine is given no waiter: only the checkpoint NOTIFY can tell this waiter about progress.
  const engine = new ProjectionEngine(ctx.db.pool, ctx.store, [projector], log, null);
  engine.start();
  const elsewhere = new CheckpointWaiter(ctx.db.pool, ctx.db.url);
  await elsewhere.listen();
  try {
    const r = await ctx.store.append('n-1', [{ type: 'Counted', data: { n: 7 } }], 'no_stream', { organizationId: 'o' });
    assert.ok(await elsewhere.waitFor(['notified'], r.position, 10_000));
    const { rows } = await ctx.db.pool.query('SELECT total FROM notified_streams WHERE stream = $1', ['n-1']);
    assert.equal(rows, [{ total: '7' }], 'the read model already shows the write');
    const beyond = { commit: r.position.commit + 1000n, prepare: 0n };
    assert.not.ok(await elsewhere.waitFor(['notified'], beyond, 100), `nothing reaches ${positionToJson(beyond)}`);
    assert.not.ok(await elsewhere.waitFor(['notified', 'nobody-runs-this'], r.position, 100), 'every named projector must pass');
    assert.ok(await elsewhere.waitFor([], r.position, 100), 'no projector to wait for');
  } finally {
    await elsewhere.close();
    await engine.stop();
  }
});

test('events a projector does not handle move its checkpoint forward only, written soon after and at stop', async (ctx) => {
  const projector = countingProjector('passing');
  await installProjectors(ctx.db.pool, projector);
  const engine = new ProjectionEngine(ctx.db.pool, ctx.store, [projector], log, ctx.waiter);
  engine.start();
  const ignored = async (prefix: string) => {
    let last: Position | null = null;
    for (let i = 0; i < 5; i++) last = (await ctx.store.append(`${prefix}-${i}`, [{ type: 'Ignored', data: {} }], 'no_stream', { organizationId: 'o' })).position;
    return last!;
  };
  try {
    // The earlier tests' events first (some of them handled).
    assert.ok(await ctx.waiter.waitFor(['passing'], await ctx.store.headPosition(), 30_000));
    const applied = (await statusOf(ctx, 'passing'))?.eventsApplied;
    const first = await ignored('pass-a');
    assert.ok(await ctx.waiter.waitFor(['passing'], first, 10_000));
    await eventually('checkpoint written', async () => positionToJson((await statusOf(ctx, 'passing'))!.position) === positionToJson(first), 5_000);
    assert.is((await statusOf(ctx, 'passing'))?.eventsApplied, applied);
    // A rebuild may have put the checkpoint further on: passing over older events never moves it back.
    await ctx.db.pool.query(`UPDATE projection_checkpoints SET commit_position = 9e15 WHERE name = 'passing'`);
    const second = await ignored('pass-b');
    assert.ok(await ctx.waiter.waitFor(['passing'], second, 10_000));
    await new Promise((r) => setTimeout(r, 500));
    assert.is((await statusOf(ctx, 'passing'))?.position.commit, 9_000_000_000_000_000n);
    await ctx.db.pool.query(`UPDATE projection_checkpoints SET commit_position = $1, prepare_position = $2 WHERE name = 'passing'`, [second.commit.toString(), second.prepare.toString()]);
    const third = await ignored('pass-c');
    assert.ok(await ctx.waiter.waitFor(['passing'], third, 10_000));
  } finally {
    await engine.stop();
  }
  // Stopping writes what was passed over at once.
  assert.equal((await statusOf(ctx, 'passing'))?.position, (await ctx.store.headPosition()));
});

test.run();
