// Appending inside the engine's own transaction, so a job's table row and its events commit together.
import type { Queryable } from '../../db/pool.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import { readStreamOn } from '../../eventstore/postgres-sql.ts';
import type { AppendRequest, AppendResult, EventMetadata, EventStore } from '../../eventstore/port.ts';

/**
 * On PostgreSQL the events join the transaction. EventStoreDB cannot: there the events are appended
 * first, and a transaction that then rolls back leaves them behind (docs/jobs.md, "Event stores").
 */
export function appendInTransaction(store: EventStore, tx: Queryable, request: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
  if (store instanceof PostgresEventStore) return store.appendWithin(tx, request, metadata);
  return store.append(request.stream, request.events, request.expectedRevision, metadata);
}

/** Revision of a stream's last event as the transaction sees it (its own appends included); null when empty. */
export async function lastRevisionIn(store: EventStore, tx: Queryable, stream: string): Promise<bigint | null> {
  const last = store instanceof PostgresEventStore
    ? await readStreamOn(tx, stream, { direction: 'backwards', maxCount: 1 })
    : await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  return last.length ? last[0].revision : null;
}
