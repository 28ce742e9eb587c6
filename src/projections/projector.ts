// What a projector declares: its name, its tables and their SQL, the events it handles, and apply().
import type { Client } from '../db/pool.ts';
import type { Migration } from '../db/migrate.ts';
import type { RecordedEvent } from '../eventstore/port.ts';

export interface Projector {
  /** Stable name: checkpoint key, lock key, `ops projections rebuild NAME`. */
  name: string;
  /** Tables it owns; a rebuild recreates exactly these and swaps them in. */
  tables: readonly string[];
  /** SQL creating the tables with unqualified names (a rebuild runs it again in a fresh schema). */
  migrations: Migration[];
  /** Event types it applies; others only move its checkpoint. */
  handles: readonly string[];
  /**
   * Optional: per handled type, every data key apply() and replay() read, when they read no metadata: a
   * rebuild reads only these (ReadAllOptions.dataKeys), less to send and parse than whole events.
   */
  dataKeys?: Readonly<Record<string, readonly string[]>>;
  /** Apply a batch (only handled types, in global order) through the transaction given. */
  apply(tx: Client, events: RecordedEvent[]): Promise<void>;
  /**
   * Optional: a writer for a rebuild's fresh, empty tables, for read models that are much cheaper to
   * derive once from everything than to upsert batch by batch. A new one per rebuild.
   */
  replay?(): ReplayWriter;
}

/**
 * How a rebuild fills the side tables: start() before the first replayed batch, apply() for each batch
 * (its own transaction, like apply()), finish() after the last one. The short locked catch-up after
 * finish() goes through the projector's apply(), so the tables must then be complete.
 */
export interface ReplayWriter {
  start(tx: Client): Promise<void>;
  apply(tx: Client, events: RecordedEvent[]): Promise<void>;
  finish(tx: Client): Promise<void>;
}

/**
 * Whether a running projector applies an event: one it handles, unless the event's own transaction wrote
 * its rows (metadata.projected). A rebuild applies every event it handles.
 */
export function appliesLive(projector: Projector, event: RecordedEvent): boolean {
  return projector.handles.includes(event.type) && !event.metadata?.projected?.includes(projector.name);
}

/** Group handlers by event type: the usual shape of a projector's apply(). */
export function applyEach(handlers: Record<string, (tx: Client, event: RecordedEvent) => Promise<void>>) {
  return async (tx: Client, events: RecordedEvent[]): Promise<void> => {
    for (const event of events) {
      const handler = handlers[event.type];
      if (handler) await handler(tx, event);
    }
  };
}
