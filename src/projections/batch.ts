// One projector batch in one transaction: the read model's writes and the checkpoint commit together,
// so a crash leaves either both or neither.
import type { Client } from '../db/pool.ts';
import { comparePositions, positionToJson, type RecordedEvent } from '../eventstore/port.ts';
import { appliesLive, type Projector } from './projector.ts';
import { readCheckpoint, writeCheckpoint } from './checkpoints.ts';

/** Apply a batch; returns the last event it covered, or null when the checkpoint was already past it. */
export async function applyBatch(client: Client, projector: Projector, events: RecordedEvent[]): Promise<RecordedEvent | null> {
  await client.query('BEGIN');
  try {
    // Locking the checkpoint row makes a rebuild's swap wait for the batch in flight, and the batch
    // wait for the swap (it then reads the rebuild's checkpoint).
    const checkpoint = await readCheckpoint(client, projector.name, true);
    // Another instance or a rebuild may already have covered part of this batch: never apply twice.
    const fresh = events.filter((e) => comparePositions(e.position, checkpoint) > 0);
    if (fresh.length === 0) {
      await client.query('COMMIT');
      return null;
    }
    const handled = fresh.filter((e) => appliesLive(projector, e));
    if (handled.length) await projector.apply(client, handled);
    const last = fresh[fresh.length - 1];
    await writeCheckpoint(client, projector.name, last.position, handled.length);
    await client.query('COMMIT');
    return last;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

export interface BatchFailure {
  event: RecordedEvent;
  error: unknown;
  /** What projection_checkpoints shows. */
  message: string;
}

/**
 * After a batch failed: apply it again in slices that each end at one handled event, so everything
 * before the faulty event is kept and the error names the event that caused it. `failure` is null
 * when every slice went through (the fault was transient).
 */
export async function narrowFailure(client: Client, projector: Projector, events: RecordedEvent[]): Promise<{ last: RecordedEvent | null; failure: BatchFailure | null }> {
  let last: RecordedEvent | null = null;
  let start = 0;
  for (let i = 0; i < events.length; i++) {
    if (!appliesLive(projector, events[i]) && i < events.length - 1) continue;
    try {
      last = (await applyBatch(client, projector, events.slice(start, i + 1))) ?? last;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const event = events[i];
      return { last, failure: { event, error, message: `${reason} (event ${event.id}, ${event.type}, at ${positionToJson(event.position)})` } };
    }
    start = i + 1;
  }
  return { last, failure: null };
}
