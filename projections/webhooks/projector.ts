// Read model of webhook subscriptions (GET /webhooks) and of their push attempts (GET /webhooks/{id}/deliveries).
// Attempts arrive by the thousand under load, so runs of them are written with one statement each. A sender
// batch's attempts are one WebhookPushesAttempted; stores written before batching hold one WebhookDeliveryAttempted each.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import {
  WEBHOOK_ATTEMPT_EVENTS, WEBHOOK_EVENTS, type WebhookAttemptEvent, type WebhookDeliveryAttempted, type WebhookEvent,
} from '../../commands/webhook/webhook.ts';

export const WEBHOOKS_PROJECTOR = 'webhooks';

const isAttemptEvent = (type: string) => (WEBHOOK_ATTEMPT_EVENTS as readonly string[]).includes(type);

async function applyWebhookEvent(tx: Client, event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case 'WebhookCreated': {
      const d = event.data;
      await tx.query(
        `INSERT INTO webhooks (organization_id, id, url, description, events, active, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, true, $6, $6) ON CONFLICT (organization_id, id) DO NOTHING`,
        [d.organizationId, d.webhookId, d.url, d.description, d.events, d.createdAt],
      );
      return;
    }
    case 'WebhookUpdated': {
      const d = event.data;
      await tx.query(
        `UPDATE webhooks SET url = COALESCE($3, url), events = COALESCE($4, events), description = COALESCE($5, description), updated_at = $6
         WHERE organization_id = $1 AND id = $2`,
        [d.organizationId, d.webhookId, d.changes.url ?? null, d.changes.events ?? null, d.changes.description ?? null, d.updatedAt],
      );
      return;
    }
    case 'WebhookPaused': {
      const d = event.data;
      // An automatic pause says why in last_error; a pause asked for by the caller leaves the last result alone.
      await tx.query(
        `UPDATE webhooks SET active = false, auto_paused = $3, last_error = CASE WHEN $3 THEN $4 ELSE last_error END, updated_at = $5
         WHERE organization_id = $1 AND id = $2`,
        [d.organizationId, d.webhookId, d.auto, d.reason, d.pausedAt],
      );
      return;
    }
    case 'WebhookResumed':
      return touch(tx, event.data, event.data.resumedAt, 'active = true, auto_paused = false, consecutive_failures = 0,');
    case 'WebhookSecretRotated':
      return touch(tx, event.data, event.data.rotatedAt, '');
    case 'WebhookPingRequested':
      return;
    case 'WebhookDeleted': {
      const d = event.data;
      await tx.query('DELETE FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2', [d.organizationId, d.webhookId]);
      await tx.query('DELETE FROM webhooks WHERE organization_id = $1 AND id = $2', [d.organizationId, d.webhookId]);
      return;
    }
    default: {
      const _never: never = event;
      throw new Error(`unhandled webhook event ${JSON.stringify(_never)}`);
    }
  }
}

async function touch(tx: Client, d: { organizationId: string; webhookId: string }, at: string, set: string): Promise<void> {
  await tx.query(`UPDATE webhooks SET ${set} updated_at = $3 WHERE organization_id = $1 AND id = $2`, [d.organizationId, d.webhookId, at]);
}

/** An attempt record with its id and when its outcome was recorded (its event's time). */
interface AttemptRecord {
  id: string;
  d: WebhookDeliveryAttempted;
  recordedAt: string;
}

/** The attempt records of a run of attempt events, in stream order. */
function attemptsOf(events: RecordedEvent[]): AttemptRecord[] {
  return events.flatMap((e) => {
    const event = e as unknown as WebhookAttemptEvent;
    if (event.type === 'WebhookDeliveryAttempted') return [{ id: e.id, d: event.data, recordedAt: e.createdAt }];
    const { organizationId } = event.data;
    return event.data.attempts.map(({ id, ...attempt }) => ({ id, d: { ...attempt, organizationId }, recordedAt: e.createdAt }));
  });
}

/** A run of attempts: every record in one insert, then each subscription's last result and failure count. */
async function applyAttempts(tx: Client, events: RecordedEvent[]): Promise<void> {
  const attempts = attemptsOf(events);
  const col = <T>(pick: (a: AttemptRecord) => T) => attempts.map(pick);
  await tx.query(
    `INSERT INTO webhook_attempts (organization_id, webhook_id, id, delivery_id, event, attempt, status, success, error, duration_ms, created_at)
     SELECT a.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bool[], $9::text[], $10::int[], $11::timestamptz[])
       AS a(organization_id, webhook_id, id, delivery_id, event, attempt, status, success, error, duration_ms, created_at)
     -- An attempt that finished after its subscription was deleted is not kept.
     WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.organization_id = a.organization_id AND w.id = a.webhook_id)
     ON CONFLICT (organization_id, id) DO NOTHING`,
    [col((a) => a.d.organizationId), col((a) => a.d.webhookId), col((a) => a.id), col((a) => a.d.deliveryId), col((a) => a.d.event),
      col((a) => a.d.attempt), col((a) => a.d.status), col((a) => a.d.success), col((a) => a.d.error), col((a) => a.d.durationMs), col((a) => a.d.at)],
  );
  const summaries = summarize(attempts);
  // updated_at is when the result was recorded, not when the attempt started (up to the time-out earlier): a
  // client whose incremental sync began while the attempt ran lists with a later updated_since, and must see it.
  // After an automatic pause, last_error keeps saying why: claims that ran beside the one that reached the count
  // record their attempts after the pause.
  await tx.query(
    `UPDATE webhooks w SET last_status = s.status, last_error = CASE WHEN w.auto_paused THEN w.last_error ELSE s.error END, last_delivery_at = s.at, updated_at = GREATEST(w.updated_at, s.recorded_at),
       consecutive_failures = CASE WHEN s.reset THEN s.failures ELSE w.consecutive_failures + s.failures END
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::timestamptz[], $6::bool[], $7::int[], $8::timestamptz[])
       AS s(organization_id, id, status, error, at, reset, failures, recorded_at)
     WHERE w.organization_id = s.organization_id AND w.id = s.id`,
    [summaries.map((s) => s.organizationId), summaries.map((s) => s.webhookId), summaries.map((s) => s.last.status), summaries.map((s) => s.last.error),
      summaries.map((s) => s.last.at), summaries.map((s) => s.reset), summaries.map((s) => s.failures), summaries.map((s) => s.recordedAt)],
  );
}

interface Summary {
  organizationId: string;
  webhookId: string;
  last: WebhookDeliveryAttempted;
  /** When the last attempt's outcome was recorded. */
  recordedAt: string;
  /** A success in the run: the count restarts from the failures after it. */
  reset: boolean;
  failures: number;
}

/** Per subscription, in stream order: its last attempt and its failures since the last success. */
export function summarize(attempts: AttemptRecord[]): Summary[] {
  const by = new Map<string, Summary>();
  for (const { d: a, recordedAt } of attempts) {
    const s = by.get(a.webhookId) ?? { organizationId: a.organizationId, webhookId: a.webhookId, last: a, recordedAt, reset: false, failures: 0 };
    s.last = a;
    s.recordedAt = recordedAt;
    if (a.success) {
      s.reset = true;
      s.failures = 0;
    } else s.failures += 1;
    by.set(a.webhookId, s);
  }
  return [...by.values()];
}

export const webhooksProjector: Projector = {
  name: WEBHOOKS_PROJECTOR,
  tables: ['webhooks', 'webhook_attempts'],
  migrations: migrationsIn(import.meta.dirname),
  handles: [...WEBHOOK_EVENTS, ...WEBHOOK_ATTEMPT_EVENTS],
  async apply(tx, events) {
    for (let i = 0; i < events.length;) {
      if (!isAttemptEvent(events[i].type)) {
        await applyWebhookEvent(tx, events[i] as unknown as WebhookEvent);
        i += 1;
        continue;
      }
      let end = i;
      while (end < events.length && isAttemptEvent(events[end].type)) end += 1;
      await applyAttempts(tx, events.slice(i, end));
      i = end;
    }
  },
};
