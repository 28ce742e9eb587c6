// The SQL of the scheduler: periodic work per organisation, and where its event feed stands.
import type { Queryable } from '../../db/pool.ts';
import { START, positionFromJson, positionToJson, type Position } from '../../eventstore/port.ts';

export interface ScheduleRow {
  organization_id: string;
  kind: string;
  scope: string;
  every_ms: string;
  next_run_at: Date;
}

/** Adds a schedule; true when it is new (the caller then queues the first run, the backfill). */
export async function addSchedule(db: Queryable, s: { organizationId: string; kind: string; scope: string; everyMs: number; nextRunAt: Date; now: Date }): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO job_schedules (organization_id, kind, scope, every_ms, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (organization_id, kind, scope) DO NOTHING`,
    [s.organizationId, s.kind, s.scope, s.everyMs, s.nextRunAt, s.now],
  );
  return rowCount === 1;
}

/** Due schedules of every organisation, locked so that two workers never run the same one. */
export async function lockDueSchedules(db: Queryable, now: Date, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT organization_id, kind, scope, every_ms::text AS every_ms, next_run_at FROM job_schedules
     WHERE next_run_at <= $1 ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** The next run is one interval after now: a worker that was down for a day runs a schedule once, not 24 times. */
export async function advanceSchedule(db: Queryable, row: ScheduleRow, everyMs: number, now: Date): Promise<void> {
  await db.query(
    `UPDATE job_schedules SET every_ms = $4, next_run_at = $5, last_enqueued_at = $6
     WHERE organization_id = $1 AND kind = $2 AND scope = $3`,
    [row.organization_id, row.kind, row.scope, everyMs, new Date(now.getTime() + everyMs), now],
  );
}

/** Removes the schedules of this kind and scope that other organisations hold (a page connected elsewhere moved here). */
export async function removeOthersSchedules(db: Queryable, s: { organizationId: string; kind: string; scope: string }): Promise<void> {
  await db.query('DELETE FROM job_schedules WHERE kind = $2 AND scope = $3 AND organization_id <> $1', [s.organizationId, s.kind, s.scope]);
}

export async function removeSchedule(db: Queryable, organizationId: string, kind: string, scope: string): Promise<void> {
  await db.query('DELETE FROM job_schedules WHERE organization_id = $1 AND kind = $2 AND scope = $3', [organizationId, kind, scope]);
}

export async function listSchedules(db: Queryable, organizationId: string): Promise<ScheduleRow[]> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT organization_id, kind, scope, every_ms::text AS every_ms, next_run_at FROM job_schedules WHERE organization_id = $1 ORDER BY kind, scope`,
    [organizationId],
  );
  return rows;
}

/** Reads (and inside a transaction locks) the feed's position. */
export async function lockFeedPosition(db: Queryable, name: string): Promise<Position> {
  await db.query('INSERT INTO job_feed_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, positionToJson(START)]);
  const { rows } = await db.query<{ position: string }>('SELECT position FROM job_feed_checkpoints WHERE name = $1 FOR UPDATE', [name]);
  return positionFromJson(rows[0].position);
}

export async function readFeedPosition(db: Queryable, name: string): Promise<Position> {
  const { rows } = await db.query<{ position: string }>('SELECT position FROM job_feed_checkpoints WHERE name = $1', [name]);
  return rows.length ? positionFromJson(rows[0].position) : START;
}

export async function writeFeedPosition(db: Queryable, name: string, position: Position): Promise<void> {
  await db.query('UPDATE job_feed_checkpoints SET position = $2 WHERE name = $1', [name, positionToJson(position)]);
}
