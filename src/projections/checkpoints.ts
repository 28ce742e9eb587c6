// Projection checkpoints: one row per projector, written in the same transaction as its read model.
import type { Queryable } from '../db/pool.ts';
import { START, type Position } from '../eventstore/port.ts';

export const CHECKPOINT_CHANNEL = 'projection_checkpoint';

export interface ProjectionStatus {
  name: string;
  position: Position;
  status: 'running' | 'failed' | 'rebuilding' | 'stopped';
  error: string;
  eventsApplied: number;
  updatedAt: string;
}

/**
 * Advisory lock keys: the leader lock (one running instance per projector); `live`, held shared by
 * transactions that write the projector's rows with their events and exclusively by a rebuild's swap
 * (live.ts); `rebuild`, held by a rebuild for its whole run, so two rebuilds of one projector (two operators,
 * `--all` twice) take turns instead of sharing, and dropping, one side schema. `apply` is kept for callers of older
 * versions; batches and rebuilds now serialise on the checkpoint row itself.
 */
export function lockKeys(name: string): { leader: number; apply: number; live: number; rebuild: number } {
  let hash = 0;
  for (const ch of name) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return { leader: hash, apply: hash ^ 0x5a5a5a5a, live: hash ^ 0x3c3c3c3c, rebuild: hash ^ 0x6b6b6b6b };
}

export async function ensureCheckpoint(db: Queryable, name: string): Promise<void> {
  await db.query('INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
}

// The statements a projector's every batch makes are named (parsed and planned once per connection). Only
// these on projection_checkpoints: a rebuild's connection reads its side schema first, and a named statement
// keeps the search path of its first use.

/** Read (and lock, inside a transaction) a projector's checkpoint. */
export async function readCheckpoint(db: Queryable, name: string, forUpdate = false): Promise<Position> {
  const { rows } = await db.query<{ commit_position: string; prepare_position: string }>({
    name: forUpdate ? 'checkpoint_lock' : 'checkpoint_read',
    text: `SELECT commit_position, prepare_position FROM projection_checkpoints WHERE name = $1 ${forUpdate ? 'FOR UPDATE' : ''}`,
    values: [name],
  });
  return rows.length ? { commit: BigInt(rows[0].commit_position), prepare: BigInt(rows[0].prepare_position) } : START;
}

/** Move the checkpoint and NOTIFY it (delivered at commit), in one round trip. */
export async function writeCheckpoint(db: Queryable, name: string, position: Position, applied: number): Promise<void> {
  // Waiters in every process learn the new position from the NOTIFY, sent only if the write commits.
  await db.query({
    name: 'checkpoint_write',
    text: `WITH written AS (
       INSERT INTO projection_checkpoints (name, commit_position, prepare_position, status, error, events_applied, updated_at)
       VALUES ($1, $2, $3, 'running', '', $4, now())
       ON CONFLICT (name) DO UPDATE SET commit_position = $2, prepare_position = $3, status = 'running', error = '',
         events_applied = projection_checkpoints.events_applied + $4, updated_at = now()
       RETURNING name)
     SELECT pg_notify($5, $6) FROM written`,
    values: [name, position.commit.toString(), position.prepare.toString(), applied, CHECKPOINT_CHANNEL, `${name} ${position.commit}/${position.prepare}`],
  });
}

/**
 * Move checkpoints forward only (a rebuild may have put one further), outside any batch: for events their
 * projectors pass over, where nothing of the read model changes with them. One statement for every
 * projector of a process that passed over something meanwhile, each checkpoint NOTIFYed as writeCheckpoint does.
 */
export async function passCheckpoints(db: Queryable, passed: ReadonlyMap<string, Position>): Promise<void> {
  if (passed.size === 0) return;
  const positions = [...passed.values()];
  await db.query({
    name: 'checkpoint_pass_many',
    text: `WITH written AS (
       UPDATE projection_checkpoints c SET commit_position = r.commit, prepare_position = r.prepare, updated_at = now()
       FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS r(name, commit, prepare)
       WHERE c.name = r.name AND (c.commit_position, c.prepare_position) < (r.commit, r.prepare)
       RETURNING c.name, r.commit, r.prepare)
     SELECT pg_notify($4, name || ' ' || commit || '/' || prepare) FROM written`,
    values: [[...passed.keys()], positions.map((p) => p.commit.toString()), positions.map((p) => p.prepare.toString()), CHECKPOINT_CHANNEL],
  });
}

export async function markStatus(db: Queryable, name: string, status: ProjectionStatus['status'], error = ''): Promise<void> {
  await db.query(
    `INSERT INTO projection_checkpoints (name, status, error) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET status = $2, error = $3, updated_at = now()`,
    [name, status, error],
  );
}

export async function listStatuses(db: Queryable): Promise<ProjectionStatus[]> {
  const { rows } = await db.query<{
    name: string; commit_position: string; prepare_position: string; status: ProjectionStatus['status'];
    error: string; events_applied: string; updated_at: Date;
  }>('SELECT * FROM projection_checkpoints ORDER BY name');
  return rows.map((r) => ({
    name: r.name,
    position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
    status: r.status,
    error: r.error,
    eventsApplied: Number(r.events_applied),
    updatedAt: r.updated_at.toISOString(),
  }));
}
