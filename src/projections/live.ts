// Read models written with the events they show. POST /events writes its rows of `conversions` and
// `delivery_queue` in the transaction that appends its events, and marks the events (metadata.projected):
// live, those projectors pass over them (appliesLive), so they neither offer the rows again nor, for
// delivery_queue, queue again a delivery the worker has already sent and deleted. A rebuild applies every
// event. What keeps a rebuild from losing such rows: a writer holds the projector's `live` lock (shared)
// for its whole transaction, and the rebuild's swap holds it exclusively from before its catch-up read,
// once every event committed so far is visible to that read. So every marked event is either replayed
// into the new tables or committed after the swap, into them.
import type { Client } from '../db/pool.ts';
import { comparePositions, positionToJson } from '../eventstore/port.ts';
import { committedHeadOn, headPositionOn } from '../eventstore/postgres-sql.ts';
import { lockKeys } from './checkpoints.ts';

/** How long a rebuild's swap waits for older transactions to end before it gives up. */
const VISIBLE_WAIT_MS = 60_000;

/** Rows of some projectors, written by a command inside the transaction of its append. */
export interface LiveRows<T> {
  projectors: readonly string[];
  write(tx: Client, items: T[]): Promise<void>;
}

/** The statement that opens a writer's transaction: BEGIN and the projectors' shared locks, one round trip. */
export function liveWriterBegin(projectors: readonly string[]): string {
  if (projectors.length === 0) return 'BEGIN';
  return `BEGIN; SELECT ${projectors.map((name) => `pg_advisory_xact_lock_shared(${lockKeys(name).live})`).join(', ')}`;
}

/**
 * In a rebuild's swap transaction, before it takes a row lock (so before it has a transaction id): writers
 * wait from here until it commits, and every event committed before now becomes visible to its catch-up.
 */
export async function holdLiveWriters(client: Client, projector: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [lockKeys(projector).live]);
  const committed = await committedHeadOn(client);
  const until = Date.now() + VISIBLE_WAIT_MS;
  while (comparePositions(await headPositionOn(client), committed) < 0) {
    if (Date.now() > until) throw new Error(`rebuild of ${projector}: events up to ${positionToJson(committed)} still not visible after ${VISIBLE_WAIT_MS / 1000} s (a long transaction is open)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
