// The SQL of the job engine's work table, one function per operation, each taking the connection to use.
// Every statement names the organisation; the claims and the lease sweep span organisations by design.
import type { Queryable } from '../../db/pool.ts';
import type { JobState, JobTrigger } from '../../../commands/job/job.ts';

export interface QueueRow {
  organization_id: string;
  number: number;
  kind: string;
  scope: string;
  trigger: JobTrigger;
  priority: number;
  status: 'queued' | 'running';
  params: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
  run_after: Date;
  lease_until: Date | null;
  worker_id: string | null;
  /** Revision of the stream's last event (after the statement that returned the row). */
  revision: string;
  queued_at: Date;
}

/** A running job as its worker holds it: ownership is the worker id and the attempt number together. */
export interface Held {
  organizationId: string;
  number: number;
  workerId: string;
  attempt: number;
}

const columns = (q = '') => `${q}organization_id, ${q}number, ${q}kind, ${q}scope, ${q}trigger, ${q}priority, ${q}status,
  ${q}params, ${q}attempts, ${q}max_attempts, ${q}run_after, ${q}lease_until, ${q}worker_id, ${q}revision::text AS revision, ${q}queued_at`;
const COLUMNS = columns();

export function stateOf(row: QueueRow): JobState {
  return {
    status: row.status, organizationId: row.organization_id, number: row.number, kind: row.kind,
    scope: row.scope, attempts: row.attempts, maxAttempts: row.max_attempts,
  };
}

/** Numbers of the queued or running jobs among these kinds and scopes, keyed "kind\0scope". */
export async function findActive(db: Queryable, organizationId: string, wanted: { kind: string; scope: string }[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ kind: string; scope: string; number: number }>(
    `SELECT q.kind, q.scope, q.number FROM job_queue q JOIN unnest($2::text[], $3::text[]) AS w(kind, scope) ON q.kind = w.kind AND q.scope = w.scope
     WHERE q.organization_id = $1`,
    [organizationId, wanted.map((w) => w.kind), wanted.map((w) => w.scope)],
  );
  return new Map(rows.map((r) => [`${r.kind}\u0000${r.scope}`, r.number]));
}

export interface QueuedRow {
  organizationId: string;
  number: number;
  kind: string;
  scope: string;
  trigger: JobTrigger;
  priority: number;
  params: Record<string, unknown>;
  maxAttempts: number;
  runAfter: string;
  queuedAt: string;
}

/** New jobs of one organisation, in one statement. */
export async function insertQueued(db: Queryable, jobs: QueuedRow[]): Promise<void> {
  const col = <K extends keyof QueuedRow>(k: K) => jobs.map((j) => j[k]);
  await db.query(
    `INSERT INTO job_queue (organization_id, number, kind, scope, trigger, priority, status, params, max_attempts, run_after, revision, queued_at)
     SELECT $1, number, kind, scope, trigger, priority, 'queued', params, max_attempts, run_after, 0, queued_at
     FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::jsonb[], $8::int[], $9::timestamptz[], $10::timestamptz[])
       AS j(number, kind, scope, trigger, priority, params, max_attempts, run_after, queued_at)`,
    [jobs[0].organizationId, col('number'), col('kind'), col('scope'), col('trigger'), col('priority'), jobs.map((j) => JSON.stringify(j.params)),
      col('maxAttempts'), col('runAfter'), col('queuedAt')],
  );
}

/**
 * Claim up to `limit` due jobs of the given kinds, user priority first: they become running under this
 * worker's lease with the attempt counted. Rows come back after the update (revision already moved on).
 */
export async function claimDue(db: Queryable, o: { kinds: readonly string[]; limit: number; now: Date; leaseUntil: Date; workerId: string }): Promise<QueueRow[]> {
  const { rows } = await db.query<QueueRow>(
    `WITH next AS (
       SELECT organization_id, number FROM job_queue
       WHERE status = 'queued' AND run_after <= $3 AND kind = ANY($1)
       ORDER BY priority, run_after, queued_at, number
       LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE job_queue q SET status = 'running', attempts = q.attempts + 1, lease_until = $4, worker_id = $5, revision = q.revision + 1
     FROM next WHERE q.organization_id = next.organization_id AND q.number = next.number
     RETURNING ${columns('q.')}`,
    [o.kinds, o.limit, o.now, o.leaseUntil, o.workerId],
  );
  return rows.sort((a, b) => a.priority - b.priority || a.run_after.getTime() - b.run_after.getTime() || a.queued_at.getTime() - b.queued_at.getTime());
}

/** Running jobs whose lease ran out (their worker died or hung), locked for the caller's transaction. */
export async function lockExpired(db: Queryable, o: { kinds: readonly string[]; now: Date; limit: number }): Promise<QueueRow[]> {
  const { rows } = await db.query<QueueRow>(
    `SELECT ${COLUMNS} FROM job_queue WHERE status = 'running' AND lease_until < $2 AND kind = ANY($1)
     ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [o.kinds, o.now, o.limit],
  );
  return rows;
}

/** One job, locked (waiting for a worker's transition to commit) for cancellation. */
export async function lockJob(db: Queryable, organizationId: string, number: number): Promise<QueueRow | null> {
  const { rows } = await db.query<QueueRow>(`SELECT ${COLUMNS} FROM job_queue WHERE organization_id = $1 AND number = $2 FOR UPDATE`, [organizationId, number]);
  return rows[0] ?? null;
}

export async function removeJob(db: Queryable, organizationId: string, number: number): Promise<void> {
  await db.query('DELETE FROM job_queue WHERE organization_id = $1 AND number = $2', [organizationId, number]);
}

/** Back to the queue (a retry or a released lease), one event further. */
export async function requeueJob(db: Queryable, organizationId: string, number: number, runAfter: string): Promise<void> {
  await db.query(
    `UPDATE job_queue SET status = 'queued', run_after = $3, lease_until = NULL, worker_id = NULL, revision = revision + 1
     WHERE organization_id = $1 AND number = $2`,
    [organizationId, number, runAfter],
  );
}

const OWNED = `organization_id = $1 AND number = $2 AND worker_id = $3 AND attempts = $4 AND status = 'running'`;
const heldParams = (h: Held) => [h.organizationId, h.number, h.workerId, h.attempt];

/** Extend the lease; false when the worker no longer holds the job (cancelled, or taken back). */
export async function extendLease(db: Queryable, held: Held, leaseUntil: Date): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE job_queue SET lease_until = $5 WHERE ${OWNED}`, [...heldParams(held), leaseUntil]);
  return rowCount === 1;
}

/** Lock the held job for a transition and return its row; null when the worker no longer holds it. */
export async function lockHeld(db: Queryable, held: Held): Promise<QueueRow | null> {
  const { rows } = await db.query<QueueRow>(`SELECT ${COLUMNS} FROM job_queue WHERE ${OWNED} FOR UPDATE`, heldParams(held));
  return rows[0] ?? null;
}

/** Remove the jobs the worker still holds (they finished) and return their rows as they were. */
export async function takeHeld(db: Queryable, held: Held[]): Promise<QueueRow[]> {
  const { rows } = await db.query<QueueRow>(
    `DELETE FROM job_queue q USING unnest($1::text[], $2::int[], $3::text[], $4::int[]) AS h(organization_id, number, worker_id, attempts)
     WHERE q.organization_id = h.organization_id AND q.number = h.number AND q.worker_id = h.worker_id AND q.attempts = h.attempts
       AND q.status = 'running'
     RETURNING ${columns('q.')}`,
    [held.map((h) => h.organizationId), held.map((h) => h.number), held.map((h) => h.workerId), held.map((h) => h.attempt)],
  );
  return rows;
}

/** A progress event: the lease is extended and the revision moves on by one. */
export async function progressHeld(db: Queryable, held: Held, leaseUntil: Date): Promise<void> {
  await db.query(`UPDATE job_queue SET lease_until = $5, revision = revision + 1 WHERE ${OWNED}`, [...heldParams(held), leaseUntil]);
}

/** Jobs still to finish per status, for the operator and the benchmark. */
export async function countActive(db: Queryable, organizationId: string): Promise<{ queued: number; running: number }> {
  const { rows } = await db.query<{ status: string; n: string }>(
    'SELECT status, count(*)::text AS n FROM job_queue WHERE organization_id = $1 GROUP BY status',
    [organizationId],
  );
  const get = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { queued: get('queued'), running: get('running') };
}
