// A process manager's work on its table and the events that record it, in one transaction where the store allows it
// (the delivery and the webhook senders).
import type { Services } from '../services.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import type { AppendRequest, EventMetadata } from '../eventstore/port.ts';

/** Appends one stream's events; resolves to the stream's new revision. */
export type Append = (request: AppendRequest, metadata: EventMetadata) => Promise<bigint>;

/**
 * PostgreSQL: the table work and the appends commit together. EventStoreDB: each append on its own, the
 * table work through the pool; a crash in between only means a claim expires and its rows are sent again.
 */
export async function recordWith<T>(services: Services, work: (db: Queryable, append: Append) => Promise<T>): Promise<T> {
  const store = services.store;
  if (store instanceof PostgresEventStore) {
    return withTransaction(services.pool, (tx) => work(tx, async (request, metadata) => (await store.appendWithin(tx, request, metadata)).nextExpectedRevision));
  }
  return work(services.pool, async (request, metadata) => (await store.append(request.stream, request.events, request.expectedRevision, metadata)).nextExpectedRevision);
}
