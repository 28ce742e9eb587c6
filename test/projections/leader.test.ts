// Two engines on one database (as two processes would be): one leads a projector, the other stands
// by and takes over when the first stops; no event is applied twice across the hand-over.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/logger.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { ProjectionEngine } from '../../src/projections/engine.ts';
import { CheckpointWaiter } from '../../src/projections/waiter.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { appendCounted, countingProjector, installProjectors, timesApplied } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';

interface Node {
  pool: Pool;
  store: PostgresEventStore;
  engine: ProjectionEngine;
}

const log = createLogger('silent');
const projector = countingProjector('leader');
const test = suite<{ db: TestDatabase; waiter: CheckpointWaiter; nodes: Node[] }>('Projection engine: one leader per projector across processes');

test.before(async (ctx) => {
  ctx.db = await freshDatabase('projection_leader');
  await installProjectors(ctx.db.pool, projector);
  ctx.waiter = new CheckpointWaiter(ctx.db.pool, ctx.db.url);
  await ctx.waiter.listen();
  ctx.nodes = [0, 1].map(() => {
    const pool = createPool(ctx.db.url, 4);
    const store = new PostgresEventStore(pool, ctx.db.url);
    return { pool, store, engine: new ProjectionEngine(pool, store, [projector], log, null, { standbyRetryMs: 50, batchSize: 100 }) };
  });
});
test.after(async (ctx) => {
  for (const n of ctx.nodes) {
    await n.engine.stop();
    await n.store.close();
    await n.pool.end();
  }
  await ctx.waiter.close();
  await ctx.db.drop();
});

test('the second engine stands by while the first leads, then takes over from its checkpoint', async (ctx) => {
  const [a, b] = ctx.nodes;
  a.engine.start();
  await a.engine.ready();
  b.engine.start();
  await b.engine.ready();
  assert.equal(a.engine.leading(), ['leader']);
  assert.equal(b.engine.leading(), [], 'standby');

  const first = await appendCounted(a.store, 1000, { prefix: 'a' });
  assert.ok(await ctx.waiter.waitFor(['leader'], first, 20_000));
  assert.equal(b.engine.leading(), [], 'still standing by');

  await a.engine.stop();
  const second = await appendCounted(b.store, 1000, { prefix: 'b' });
  await eventually('the standby takes the lead', async () => b.engine.leading().length === 1);
  assert.ok(await ctx.waiter.waitFor(['leader'], second, 20_000));
  assert.equal(await timesApplied(ctx.db.pool, 'leader'), { events: 2000, maxTimes: 1 });
});

test.run();
