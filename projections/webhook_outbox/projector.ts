// Webhook fan-out: for each domain event a webhook carries, one queued push per subscription of that
// organisation that was subscribed to its type at that point of the stream. A paused subscription's pushes
// are queued too and wait: the sender claims none of them until it is resumed ("deliveries paused").
//
// Exactly once: the queue rows commit in the same transaction as this projector's checkpoint, and the
// delivery id is derived from (subscription, event), so a batch applied again cannot add a row. The queue
// and its mark live outside the rebuilt tables: pushes are queued only for events past the mark, so a
// rebuild (`ops projections rebuild webhook_outbox`) refreshes webhook_subscriptions but never queues an
// old event again, and whichever of the rebuild and the live runner reaches a new event first queues it.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client } from '../../src/db/pool.ts';
import { comparePositions, type Position, type RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../commands/webhook/webhook.ts';
import { isPushSource, pushOf, PUSH_SOURCES, type Push } from './payloads.ts';

export const WEBHOOK_OUTBOX_PROJECTOR = 'webhook_outbox';
/** NOTIFY channel: pushes were queued (the sender wakes at once instead of at its next poll). */
export const WEBHOOK_QUEUE_CHANNEL = 'webhook_queue';

async function readMark(tx: Client): Promise<Position> {
  const { rows } = await tx.query<{ commit_position: string; prepare_position: string }>(
    'SELECT commit_position, prepare_position FROM public.webhook_outbox_mark WHERE id FOR UPDATE',
  );
  return { commit: BigInt(rows[0].commit_position), prepare: BigInt(rows[0].prepare_position) };
}

async function writeMark(tx: Client, position: Position): Promise<void> {
  await tx.query('UPDATE public.webhook_outbox_mark SET commit_position = $1, prepare_position = $2 WHERE id', [position.commit.toString(), position.prepare.toString()]);
}

/**
 * A run of domain events, in order, into one insert joined with the subscriptions as they stand now. The
 * delivery id (X-Service-Delivery) comes from the subscription and the event, so a batch applied twice adds
 * no row; its MD5 is laid out as a version-5 UUID with the RFC variant, like uuidFromParts' ids.
 */
async function queuePushes(tx: Client, pushes: Push[]): Promise<void> {
  await tx.query(
    `INSERT INTO public.webhook_queue (id, organization_id, webhook_id, event_type, event_id, payload, created_at, due_at)
     SELECT overlay(overlay(h.hex PLACING '5' FROM 13) PLACING to_hex(8 | (('x' || substr(h.hex, 17, 1))::bit(4)::int & 3)) FROM 17)::uuid::text,
       s.organization_id, s.id, p.type, p.event_id, p.payload, p.created_at, now()
     FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[]) WITH ORDINALITY AS p(organization_id, type, event_id, payload, created_at, ord)
     JOIN webhook_subscriptions s ON s.organization_id = p.organization_id AND p.type = ANY(s.events)
     CROSS JOIN LATERAL (SELECT md5(s.id || '/' || p.event_id) AS hex) h
     ORDER BY p.ord, s.id
     ON CONFLICT (id) DO NOTHING`,
    [pushes.map((p) => p.organizationId), pushes.map((p) => p.type), pushes.map((p) => p.eventId), pushes.map((p) => JSON.stringify(p.data)), pushes.map((p) => p.createdAt)],
  );
}

async function applySubscription(tx: Client, event: WebhookEvent, createdAt: string, fresh: boolean): Promise<void> {
  switch (event.type) {
    case 'WebhookCreated': {
      const d = event.data;
      await tx.query(
        `INSERT INTO webhook_subscriptions (organization_id, id, url, events, active, secret_ciphertext) VALUES ($1, $2, $3, $4, true, $5)
         ON CONFLICT (organization_id, id) DO NOTHING`,
        [d.organizationId, d.webhookId, d.url, d.events, d.secretCiphertext],
      );
      return;
    }
    case 'WebhookUpdated': {
      const d = event.data;
      await tx.query('UPDATE webhook_subscriptions SET url = COALESCE($3, url), events = COALESCE($4, events) WHERE organization_id = $1 AND id = $2',
        [d.organizationId, d.webhookId, d.changes.url ?? null, d.changes.events ?? null]);
      // Only subscribed types are sent: pushes still queued of a type the subscription no longer takes go, as
      // DELETE drops them all (a paused subscription would otherwise send them on resume). A test ping stays.
      if (fresh && d.changes.events) {
        await tx.query(
          `DELETE FROM public.webhook_queue WHERE organization_id = $1 AND webhook_id = $2 AND event_type <> 'ping' AND NOT (event_type = ANY($3::text[]))`,
          [d.organizationId, d.webhookId, d.changes.events],
        );
      }
      return;
    }
    case 'WebhookPaused':
      return setSubscription(tx, event.data, 'active = false');
    case 'WebhookResumed':
      return resume(tx, event.data, fresh);
    case 'WebhookSecretRotated':
      await tx.query('UPDATE webhook_subscriptions SET secret_ciphertext = $3 WHERE organization_id = $1 AND id = $2',
        [event.data.organizationId, event.data.webhookId, event.data.secretCiphertext]);
      return;
    case 'WebhookDeleted':
      await setSubscription(tx, event.data, null);
      if (fresh) await tx.query('DELETE FROM public.webhook_queue WHERE organization_id = $1 AND webhook_id = $2', [event.data.organizationId, event.data.webhookId]);
      return;
    case 'WebhookPingRequested': {
      const d = event.data;
      if (!fresh) return;
      await tx.query(
        `INSERT INTO public.webhook_queue (id, organization_id, webhook_id, event_type, event_id, payload, created_at, due_at)
         SELECT $3, organization_id, id, 'ping', $3, $4, $5, now() FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2
         ON CONFLICT (id) DO NOTHING`,
        [d.organizationId, d.webhookId, d.deliveryId, JSON.stringify({ webhook_id: d.webhookId }), createdAt],
      );
      return;
    }
    default: {
      const _never: never = event;
      throw new Error(`unhandled webhook event ${JSON.stringify(_never)}`);
    }
  }
}

/**
 * Everything queued goes out on resume (docs/webhooks.md): a push the failures before a pause had put off to a
 * later retry (up to a day) is due at once. A resume of a subscription still active only restarts the count, and
 * a push under a live claim is left to its outcome.
 */
async function resume(tx: Client, d: { organizationId: string; webhookId: string }, fresh: boolean): Promise<void> {
  const { rows } = await tx.query<{ active: boolean }>('SELECT active FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2', [d.organizationId, d.webhookId]);
  await setSubscription(tx, d, 'active = true, resumes = resumes + 1');
  if (!fresh || rows[0]?.active !== false) return;
  await tx.query(
    `UPDATE public.webhook_queue SET due_at = now()
     WHERE organization_id = $1 AND webhook_id = $2 AND due_at > now() AND (claimed_until IS NULL OR claimed_until < now())`,
    [d.organizationId, d.webhookId],
  );
}

async function setSubscription(tx: Client, d: { organizationId: string; webhookId: string }, set: string | null): Promise<void> {
  const sql = set === null
    ? 'DELETE FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2'
    : `UPDATE webhook_subscriptions SET ${set} WHERE organization_id = $1 AND id = $2`;
  await tx.query(sql, [d.organizationId, d.webhookId]);
}

export const webhookOutboxProjector: Projector = {
  name: WEBHOOK_OUTBOX_PROJECTOR,
  tables: ['webhook_subscriptions'],
  migrations: migrationsIn(import.meta.dirname),
  handles: [...WEBHOOK_EVENTS, ...Object.keys(PUSH_SOURCES)],
  async apply(tx, events) {
    const mark = await readMark(tx);
    let pending: Push[] = [];
    let queued = false;
    const flush = async () => {
      if (pending.length) await queuePushes(tx, pending);
      queued ||= pending.length > 0;
      pending = [];
    };
    for (const event of events) {
      const fresh = comparePositions(event.position, mark) > 0;
      if (isPushSource(event.type)) {
        if (fresh) pending.push(pushOf(event as RecordedEvent & { type: typeof event.type }));
        continue;
      }
      // Subscription changes split the runs: each run is joined with the subscriptions as of its place.
      await flush();
      await applySubscription(tx, event as unknown as WebhookEvent, event.createdAt, fresh);
      queued ||= fresh && (event.type === 'WebhookPingRequested' || event.type === 'WebhookResumed');
    }
    await flush();
    const last = events[events.length - 1];
    if (last && comparePositions(last.position, mark) > 0) await writeMark(tx, last.position);
    if (queued) await tx.query('SELECT pg_notify($1, $2)', [WEBHOOK_QUEUE_CHANNEL, '']);
  },
};
