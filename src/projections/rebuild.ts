// Rebuild: replay the store into fresh tables in a side schema, then swap them in atomically.
// The API keeps answering from the old tables until the swap commits; the live runner keeps applying
// to them meanwhile and, after the swap, carries on from the rebuild's checkpoint.
import type { Client, Pool } from '../db/pool.ts';
import { START, comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';
import type { Projector } from './projector.ts';
import { ensureCheckpoint, lockKeys, readCheckpoint, writeCheckpoint } from './checkpoints.ts';
import { holdLiveWriters } from './live.ts';

type Apply = (tx: Client, events: RecordedEvent[]) => Promise<void>;

export interface ReplayProgress {
  (applied: number, total: number): void;
}

const BATCH = 5000;

interface Replayed {
  position: Position;
  /** Events read so far (progress). */
  seen: number;
  /** Events the projector handled (what events_applied shows after the swap). */
  handled: number;
}

async function createSideTables(client: Client, projector: Projector, schema: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  // Unqualified names in the projector's SQL now resolve to the side schema first.
  await client.query(`SET search_path = ${schema}, public`);
  for (const migration of projector.migrations) await client.query(migration.sql);
}

/**
 * The store's handled events after a position, filtered by the store: a projector that handles a few
 * types does not read (or parse) the rest, nor the data keys it does not use.
 */
const readHandled = (store: EventStore, projector: Projector, after: Position) =>
  store.readAll({ after, maxCount: BATCH, types: projector.handles, dataKeys: projector.dataKeys });

/**
 * Where a filtered pass ends: its last handled event, or the head seen before it started when that is
 * later (every event up to that head was visible to the pass, so the checkpoint may pass over them).
 */
const passEnd = (lastHandled: Position, headBefore: Position) => (comparePositions(headBefore, lastHandled) > 0 ? headBefore : lastHandled);

/** Replay in batches of one transaction each; the next batch is read while the current one applies. */
async function replayFrom(
  client: Client,
  store: EventStore,
  projector: Projector,
  apply: Apply,
  from: Position,
  options: { onProgress?: ReplayProgress; total?: number; seen?: number },
): Promise<Replayed> {
  const head = await store.headPosition();
  let position = from;
  let seen = options.seen ?? 0;
  let handled = 0;
  const read = (after: Position) => {
    const batch = readHandled(store, projector, after);
    // Marked handled now: if applying the current batch fails, this read may fail unobserved.
    batch.catch(() => {});
    return batch;
  };
  let next = read(from);
  for (;;) {
    const batch = await next;
    if (batch.length === 0) return { position: passEnd(position, head), seen, handled };
    position = batch[batch.length - 1].position;
    next = read(position);
    handled += await applyHandled(client, projector, apply, batch, true);
    seen += batch.length;
    options.onProgress?.(seen, Math.max(options.total ?? seen, seen));
  }
}

async function applyHandled(client: Client, projector: Projector, apply: Apply, batch: RecordedEvent[], ownTransaction: boolean): Promise<number> {
  const handled = batch.filter((e) => projector.handles.includes(e.type));
  if (handled.length === 0) return 0;
  if (ownTransaction) await inTransaction(client, () => apply(client, handled));
  else await apply(client, handled);
  return handled.length;
}

async function inTransaction(client: Client, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Events of the given types in the store: what a rebuild will read (its progress total). */
export async function countEvents(pool: Pool, types: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM es_events WHERE event_type = ANY($1)', [types]);
  return Number(rows[0].n);
}

/** Rebuild one projector; progress reports events read so far out of the store's events of its types. */
export async function rebuildProjector(pool: Pool, store: EventStore, projector: Projector, onProgress?: ReplayProgress): Promise<Position> {
  const schema = `rebuild_${projector.name.replace(/\W/g, '_')}`;
  const client = await pool.connect();
  try {
    // Another rebuild of this projector runs: wait for it (released with this session, whatever happens).
    await client.query('SELECT pg_advisory_lock($1)', [lockKeys(projector.name).rebuild]);
    const total = store.kind === 'postgres' ? await countEvents(pool, projector.handles) : 0;
    await createSideTables(client, projector, schema);
    // The projector's own way to fill empty tables, when it has one; the locked catch-up uses apply().
    const writer = projector.replay?.();
    const apply: Apply = writer ? (tx, events) => writer.apply(tx, events) : (tx, events) => projector.apply(tx, events);
    if (writer) await inTransaction(client, () => writer.start(client));
    const first = await replayFrom(client, store, projector, apply, START, { onProgress, total });
    // A second pass picks up what arrived during the first, so the locked pass below stays short.
    const second = await replayFrom(client, store, projector, apply, first.position, { onProgress, total, seen: first.seen });
    if (writer) await inTransaction(client, () => writer.finish(client));
    // Vacuumed and analysed before the swap: the first queries are planned on fresh statistics and read pages
    // already marked all-visible, and autovacuum does not start on the just-written rows (a bulk-loaded table
    // crosses its insert threshold) while the service answers from them.
    for (const table of projector.tables) await client.query(`VACUUM (ANALYZE) ${schema}.${table}`);
    await client.query('BEGIN');
    // Rows written with their events land in the old tables until here; from here they wait for the swap.
    if (store.kind === 'postgres') await holdLiveWriters(client, projector.name);
    // Lock the checkpoint row: wait for the live batch in flight; from here the live runner waits.
    await ensureCheckpoint(client, projector.name);
    await readCheckpoint(client, projector.name, true);
    const last = await catchUpInTransaction(client, store, projector, second.position);
    await swapIn(client, projector, schema);
    await client.query('UPDATE projection_checkpoints SET events_applied = 0 WHERE name = $1', [projector.name]);
    await writeCheckpoint(client, projector.name, last.position, first.handled + second.handled + last.handled);
    await client.query('COMMIT');
    return last.position;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    throw error;
  } finally {
    // The session's search_path was changed: do not hand this connection to anyone else.
    client.release(true);
  }
}

async function swapIn(client: Client, projector: Projector, schema: string): Promise<void> {
  await client.query('SET LOCAL search_path = public');
  for (const table of projector.tables) {
    await client.query(`DROP TABLE IF EXISTS public.${table} CASCADE`);
    await client.query(`ALTER TABLE ${schema}.${table} SET SCHEMA public`);
  }
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
}

async function catchUpInTransaction(client: Client, store: EventStore, projector: Projector, from: Position): Promise<Replayed> {
  const head = await store.headPosition();
  let position = from;
  let handled = 0;
  for (;;) {
    const batch = await readHandled(store, projector, position);
    if (batch.length === 0) return { position: passEnd(position, head), seen: 0, handled };
    handled += await applyHandled(client, projector, (tx, events) => projector.apply(tx, events), batch, false);
    position = batch[batch.length - 1].position;
  }
}
