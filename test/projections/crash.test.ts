// A crash mid-batch (the engine's process killed while a batch is half written) neither applies an
// event twice nor skips one: the half batch rolls back with its checkpoint, and a new engine resumes.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/logger.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { ProjectionEngine } from '../../src/projections/engine.ts';
import { listStatuses } from '../../src/projections/checkpoints.ts';
import { CheckpointWaiter } from '../../src/projections/waiter.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { CRASH_BATCH } from './crash-child.ts';
import { appendCounted, countingProjector, installProjectors, timesApplied } from './fixtures.ts';

const test = suite<{ db: TestDatabase; store: PostgresEventStore }>('Projection engine: killed mid-batch');
test.before(async (ctx) => {
  ctx.db = await freshDatabase('projection_crash');
  ctx.store = new PostgresEventStore(ctx.db.pool, ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

/** Start the child engine and resolve once it is halfway through its third batch. */
function childAtHalfBatch(url: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'crash-child.ts')], {
    env: { ...process.env, CRASH_CHILD_URL: url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const half = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('HALF') && resolve());
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before the crash point`)));
  });
  return { child, half, exited };
}

test('the half-written batch is rolled back and a new engine applies every event exactly once', async ({ db, store }) => {
  const projector = countingProjector('crash');
  await installProjectors(db.pool, projector);
  const head = await appendCounted(store, 2000, { per: 100 });
  const run = childAtHalfBatch(db.url);
  await run.half;
  // The third batch has written half its rows, uncommitted: only two batches are visible.
  assert.equal(await timesApplied(db.pool, 'crash'), { events: 2 * CRASH_BATCH, maxTimes: 1 });
  run.child.kill('SIGKILL');
  await run.exited;
  assert.equal(await timesApplied(db.pool, 'crash'), { events: 2 * CRASH_BATCH, maxTimes: 1 }, 'nothing of the killed batch remains');
  const [checkpoint] = await listStatuses(db.pool);
  assert.is(checkpoint.eventsApplied, 2 * CRASH_BATCH, 'the checkpoint matches the rows');

  const waiter = new CheckpointWaiter(db.pool, db.url);
  const engine = new ProjectionEngine(db.pool, store, [projector], createLogger('silent'), waiter, { batchSize: CRASH_BATCH, standbyRetryMs: 50 });
  engine.start();
  try {
    // The killed session's leader lock is released by the server when it notices the dead client.
    assert.ok(await waiter.waitFor(['crash'], head, 30_000), 'resumed to the head');
    assert.equal(await timesApplied(db.pool, 'crash'), { events: 2000, maxTimes: 1 });
  } finally {
    await engine.stop();
    await waiter.close();
  }
});

test.run();
