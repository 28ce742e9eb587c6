// Child process for crash.test.ts: runs the engine on one projector and, halfway through writing its
// third batch, says "HALF" and waits to be killed. Does nothing unless CRASH_CHILD_URL is set.
import { createLogger } from '../../src/logger.ts';
import { createPool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { ProjectionEngine } from '../../src/projections/engine.ts';
import { countingProjector } from './fixtures.ts';

export const CRASH_BATCH = 400;

const url = process.env.CRASH_CHILD_URL;
if (url) {
  let batches = 0;
  const projector = countingProjector('crash', {
    afterHalf: async () => {
      if (++batches < 3) return;
      process.stdout.write('HALF\n');
      await new Promise(() => {});
    },
  });
  const pool = createPool(url, 4);
  const store = new PostgresEventStore(pool, url);
  new ProjectionEngine(pool, store, [projector], createLogger('silent'), null, { batchSize: CRASH_BATCH }).start();
}
