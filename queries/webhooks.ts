// The webhooks read model as GET /webhooks, GET /webhooks/{id} and GET /webhooks/{id}/deliveries read it.
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';

export interface WebhookRow {
  organization_id: string;
  id: string;
  url: string;
  description: string;
  events: string[];
  active: boolean;
  last_status: number;
  last_error: string;
  last_delivery_at: Date | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  event: string;
  attempt: number;
  status: number;
  success: boolean;
  error: string;
  duration_ms: number;
  created_at: Date;
  /** The keyset column: an attempt never changes, so its time is its last change. */
  updated_at: Date;
}

/** Attempt records are shown for this long, and purged after it. */
export const ATTEMPT_RETENTION_DAYS = 30;

const WEBHOOK_COLUMNS = `organization_id, id, url, description, events, active, last_status, last_error, last_delivery_at,
  consecutive_failures, created_at, updated_at`;

export const rowPosition = (row: { updated_at: Date; id: string }) => ({ updatedAt: row.updated_at.toISOString(), id: row.id });

export async function listWebhooks(db: Queryable, organizationId: string, page: Page): Promise<WebhookRow[]> {
  const ks = keyset(page, 2, 'w.');
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w WHERE w.organization_id = $1 AND ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
    [organizationId, ...ks.params],
  );
  return rows;
}

export async function getWebhook(db: Queryable, organizationId: string, webhookId: string): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE organization_id = $1 AND id = $2`, [organizationId, webhookId]);
  return rows[0] ?? null;
}

/** Attempts of one subscription within the retention window, through the shared keyset pagination. */
export async function listAttempts(db: Queryable, organizationId: string, webhookId: string, page: Page, now: Date): Promise<AttemptRow[]> {
  const since = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000);
  const ks = keyset(page, 4, 'a.');
  const { rows } = await db.query<AttemptRow>(
    `SELECT * FROM (
       SELECT id, delivery_id, event, attempt, status, success, error, duration_ms, created_at, created_at AS updated_at
       FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2 AND created_at >= $3
     ) a WHERE ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
    [organizationId, webhookId, since, ...ks.params],
  );
  return rows;
}

/** Drop one organisation's attempt records older than the retention window; returns how many went. */
export async function purgeAttempts(db: Queryable, organizationId: string, now: Date): Promise<number> {
  const before = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000);
  const { rowCount } = await db.query('DELETE FROM webhook_attempts WHERE organization_id = $1 AND created_at < $2', [organizationId, before]);
  return rowCount ?? 0;
}

/** Organisations that have attempt records (the purge goes through them one by one). */
export async function organizationsWithAttempts(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ organization_id: string }>('SELECT DISTINCT organization_id FROM webhooks');
  return rows.map((r) => r.organization_id);
}
