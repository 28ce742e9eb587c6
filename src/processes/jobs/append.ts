// Appending inside the engine's own transaction, so a job's table row and its events commit together.
// The engine appends several streams per transaction and wakes the store's subscribers once, at commit.
import type { Queryable } from '../../db/pool.ts';
import { EVENTS_CHANNEL, PostgresEventStore } from '../../eventstore/postgres.ts';
import { appendOn, readStreamOn } from '../../eventstore/postgres-sql.ts';
import type { AppendRequest, AppendResult, EventMetadata, EventStore } from '../../eventstore/port.ts';

/**
 * On PostgreSQL the events join the transaction (call announceAtCommit once before committing).
 * EventStoreDB cannot join it: there the events are appended first, and a transaction that then rolls
 * back leaves them behind (docs/jobs.md, "Event stores").
 */
export function appendInTransaction(store: EventStore, tx: Queryable, request: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
  if (store instanceof PostgresEventStore) return appendOn(tx, request, metadata);
  return store.append(request.stream, request.events, request.expectedRevision, metadata);
}

/** One NOTIFY for the store's subscribers in every process (delivered at commit), plus an optional one of our own. */
export async function announceAtCommit(store: EventStore, tx: Queryable, also?: { channel: string; payload: string }): Promise<void> {
  const events = store instanceof PostgresEventStore;
  if (events && also) await tx.query('SELECT pg_notify($1, \'\'), pg_notify($2, $3)', [EVENTS_CHANNEL, also.channel, also.payload]);
  else if (events) await tx.query('SELECT pg_notify($1, \'\')', [EVENTS_CHANNEL]);
  else if (also) await tx.query('SELECT pg_notify($1, $2)', [also.channel, also.payload]);
}

/** Revision of a stream's last event as the transaction sees it (its own appends included); null when empty. */
export async function lastRevisionIn(store: EventStore, tx: Queryable, stream: string): Promise<bigint | null> {
  const last = store instanceof PostgresEventStore
    ? await readStreamOn(tx, stream, { direction: 'backwards', maxCount: 1 })
    : await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  return last.length ? last[0].revision : null;
}
