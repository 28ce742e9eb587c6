// Bring read models up to the store's head from a process that may not run the workers (the CLI):
// lead each projector briefly when no one else does, otherwise wait for the one that does.
import type { Pool } from '../db/pool.ts';
import type { EventStore, Position } from '../eventstore/port.ts';
import type { Projector } from './projector.ts';
import type { CheckpointWaiter } from './waiter.ts';
import { applyBatch } from './engine.ts';
import { ensureCheckpoint, lockKeys, readCheckpoint } from './checkpoints.ts';

export async function drainProjections(pool: Pool, store: EventStore, projectors: readonly Projector[], waiter: CheckpointWaiter, target?: Position): Promise<void> {
  const head = target ?? (await store.headPosition());
  // Side by side: read models are independent, and one slow projector (contacts, after a bulk import) no longer
  // keeps the others waiting.
  await Promise.all(projectors.map((projector) => drainOne(pool, store, projector, waiter, head)));
}

async function drainOne(pool: Pool, store: EventStore, projector: Projector, waiter: CheckpointWaiter, head: Position): Promise<void> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [lockKeys(projector.name).leader]);
    if (!rows[0].ok) {
      await waiter.waitFor([projector.name], head, 10_000);
      return;
    }
    await ensureCheckpoint(client, projector.name);
    let after = await readCheckpoint(client, projector.name);
    for (;;) {
      // Every position is read (the checkpoint passes over all events), but only handled ones with their payload.
      const batch = await store.readAll({ after, maxCount: 1000, payloadTypes: projector.handles });
      if (batch.length === 0) break;
      await applyBatch(client, projector, batch);
      after = batch[batch.length - 1].position;
    }
    await client.query('SELECT pg_advisory_unlock($1)', [lockKeys(projector.name).leader]);
  } finally {
    client.release();
  }
}
