// Webhook rows as the API shows them, and the read after a write (read-your-writes on both webhook models).
import { ApiError } from '../../commands/shared/errors.ts';
import { getWebhook, type AttemptRow, type WebhookRow } from '../../queries/webhooks.ts';
import type { Position } from '../eventstore/port.ts';
import type { Services } from '../services.ts';
import type { WebhookCreated, WebhookEventType } from '../../commands/webhook/webhook.ts';

/** The API's read model and the fan-out's subscriptions: a write is answered once both have it. */
export const WEBHOOK_READ_MODELS = ['webhooks', 'webhook_outbox'] as const;

export function toWebhook(row: WebhookRow) {
  return {
    id: row.id, url: row.url, description: row.description, events: row.events as WebhookEventType[], active: row.active,
    last_status: row.last_status, last_error: row.last_error, last_delivery_at: row.last_delivery_at?.toISOString() ?? null,
    consecutive_failures: row.consecutive_failures, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

export function toAttempt(row: AttemptRow) {
  return {
    id: row.id, delivery_id: row.delivery_id, event: row.event, attempt: row.attempt, status: row.status, success: row.success,
    error: row.error, duration_ms: row.duration_ms, created_at: row.created_at.toISOString(),
  };
}

export async function liveWebhook(services: Services, organizationId: string, webhookId: string): Promise<WebhookRow> {
  const row = await getWebhook(services.pool, organizationId, webhookId);
  if (!row) throw new ApiError('not_found', { webhook_id: webhookId });
  return row;
}

/** A new subscription as the read model shows it once it has applied its WebhookCreated (the table's defaults). */
export function createdWebhookRow(d: WebhookCreated): WebhookRow {
  const at = new Date(d.createdAt);
  return {
    organization_id: d.organizationId, id: d.webhookId, url: d.url, description: d.description, events: d.events, active: true,
    last_status: 0, last_error: '', last_delivery_at: null, consecutive_failures: 0, created_at: at, updated_at: at,
  };
}

/**
 * The webhook after the read models passed the write's position. A create passes the row it made: when the read
 * model has not caught up within the bound (WORKERS=off and no worker process), that is the answer, not a 404.
 */
export async function webhookAfter(services: Services, organizationId: string, webhookId: string, position: Position | null, created?: WebhookRow) {
  if (position) await services.waiter.waitFor(WEBHOOK_READ_MODELS, position, 5000);
  const row = created ? (await getWebhook(services.pool, organizationId, webhookId)) ?? created : await liveWebhook(services, organizationId, webhookId);
  return toWebhook(row);
}
