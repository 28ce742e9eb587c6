// Rebuild: replay the store into fresh tables in a side schema, then swap them in atomically.
// The API keeps answering from the old tables until the swap commits.
import type { Client, Pool } from '../db/pool.ts';
import { START, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';
import type { Projector } from './projector.ts';
import { lockKeys, writeCheckpoint } from './checkpoints.ts';

export interface ReplayProgress {
  (applied: number, total: number): void;
}

const BATCH = 5000;

/** Create the projector's tables in `schema` and replay events into them; returns the last position read. */
export async function replayInto(
  client: Client,
  store: EventStore,
  projector: Projector,
  schema: string,
  options: { until?: (event: RecordedEvent) => boolean; onProgress?: ReplayProgress; total?: number } = {},
): Promise<Position> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path = ${schema}, public`);
  for (const migration of projector.migrations) await client.query(migration.sql);
  return replayFrom(client, store, projector, START, options);
}

async function replayFrom(
  client: Client,
  store: EventStore,
  projector: Projector,
  from: Position,
  options: { until?: (event: RecordedEvent) => boolean; onProgress?: ReplayProgress; total?: number },
): Promise<Position> {
  let after = from;
  let seen = 0;
  for (;;) {
    let batch = await store.readAll({ after, maxCount: BATCH });
    if (batch.length === 0) break;
    const cut = options.until ? batch.findIndex((e) => !options.until!(e)) : -1;
    if (cut >= 0) batch = batch.slice(0, cut);
    const handled = batch.filter((e) => projector.handles.includes(e.type));
    if (handled.length) {
      await client.query('BEGIN');
      await projector.apply(client, handled);
      await client.query('COMMIT');
    }
    if (batch.length) after = batch[batch.length - 1].position;
    seen += batch.length;
    options.onProgress?.(seen, options.total ?? seen);
    if (cut >= 0) break;
  }
  return after;
}

export async function countEvents(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM es_events');
  return Number(rows[0].n);
}

/** Rebuild one projector; progress reports events read so far out of the store's size. */
export async function rebuildProjector(pool: Pool, store: EventStore, projector: Projector, onProgress?: ReplayProgress): Promise<Position> {
  const schema = `rebuild_${projector.name.replace(/\W/g, '_')}`;
  const client = await pool.connect();
  try {
    const total = store.kind === 'postgres' ? await countEvents(pool) : 0;
    let position = await replayInto(client, store, projector, schema, { onProgress, total });
    await client.query('BEGIN');
    // Wait for the live batch in flight, catch up what arrived meanwhile, then swap.
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockKeys(projector.name).apply]);
    position = await catchUpInTransaction(client, store, projector, position);
    await client.query('SET LOCAL search_path = public');
    for (const table of projector.tables) {
      await client.query(`DROP TABLE IF EXISTS public.${table} CASCADE`);
      await client.query(`ALTER TABLE ${schema}.${table} SET SCHEMA public`);
    }
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.query(`UPDATE projection_checkpoints SET events_applied = 0 WHERE name = $1`, [projector.name]);
    await writeCheckpoint(client, projector.name, position, 0);
    await client.query('COMMIT');
    return position;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    throw error;
  } finally {
    // The session's search_path was changed: do not hand this connection to anyone else.
    client.release(true);
  }
}

async function catchUpInTransaction(client: Client, store: EventStore, projector: Projector, from: Position): Promise<Position> {
  let after = from;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: BATCH });
    if (batch.length === 0) return after;
    const handled = batch.filter((e) => projector.handles.includes(e.type));
    if (handled.length) await projector.apply(client, handled);
    after = batch[batch.length - 1].position;
  }
}
