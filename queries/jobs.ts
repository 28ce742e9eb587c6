// The jobs read model as GET /jobs, GET /jobs/{number}, the CLI and the job kinds read it.
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';

export interface JobRow {
  organization_id: string;
  number: number;
  kind: string;
  label: string;
  scope: string;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  priority: 'user' | 'background';
  trigger: string;
  progress_done: number;
  progress_text: string;
  attempts: number;
  error: string;
  summary: string;
  run_after: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created: Date;
  updated_at: Date;
  /** The keyset's tie-breaker: the number as zero-padded text, so it orders like the number. */
  id: string;
}

const COLUMNS = `organization_id, number, kind, label, scope, status, priority, trigger, progress_done, progress_text,
  attempts, error, summary, run_after, started_at, finished_at, created, updated_at, lpad(number::text, 10, '0') AS id`;

/** Keyset position of a job row for pagination.ts (updated_at with milliseconds, and the padded number). */
export const jobPosition = (row: JobRow) => ({ updatedAt: row.updated_at.toISOString(), id: row.id });

export async function listJobs(db: Queryable, organizationId: string, page: Page, filters: { status?: string }): Promise<JobRow[]> {
  const params: unknown[] = [organizationId];
  let where = 'organization_id = $1';
  if (filters.status) {
    params.push(filters.status);
    where += ` AND status = $${params.length}`;
  }
  const ks = keyset(page, params.length + 1, 'j.');
  params.push(...ks.params);
  const { rows } = await db.query<JobRow>(
    `SELECT * FROM (SELECT ${COLUMNS} FROM jobs WHERE ${where}) j WHERE ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
    params,
  );
  return rows;
}

export async function getJob(db: Queryable, organizationId: string, number: number): Promise<JobRow | null> {
  const { rows } = await db.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE organization_id = $1 AND number = $2`, [organizationId, number]);
  return rows[0] ?? null;
}

/**
 * When the last successful run of this kind and scope started (the next incremental run reads from there); a run that
 * read from a day the operator gave does not count (it may have skipped what came between the last success and that day).
 */
export async function lastSuccessStart(db: Queryable, organizationId: string, kind: string, scope: string): Promise<Date | null> {
  const { rows } = await db.query<{ started_at: Date | null }>(
    `SELECT max(started_at) AS started_at FROM jobs
     WHERE organization_id = $1 AND kind = $2 AND scope = $3 AND status = 'done' AND NOT reads_from_day`,
    [organizationId, kind, scope],
  );
  return rows[0]?.started_at ?? null;
}
