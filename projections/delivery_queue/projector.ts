// Feeds the delivery process's work table from the store: accepted conversions queue their deliveries,
// outcomes take them out or move them later. The workers write the same rows (claims, and outcomes in the
// transaction that records them), so every statement here is a no-op when a worker got there first, and a
// rebuild from the store gives back exactly the deliveries still to send. POST /events queues its
// deliveries itself, in the transaction of its append (queueDeliveries): live, this projector passes over
// those conversions (a delivery already sent and deleted must never be queued again).
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client, Queryable } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { QUEUEING_EVENT_TYPES, isQueueingEvent, type ConversionAcceptedData } from '../../commands/conversion/conversion.ts';
import { DELIVERY_EVENT_TYPES, currentDeliveryEvent, type DeliveryEvent } from '../../commands/delivery/delivery.ts';

type Data<T extends DeliveryEvent['type']> = Extract<DeliveryEvent, { type: T }>['data'];

/** What the worker needs to build the platform's event; hashes only, never plaintext. */
export function payloadOf(c: ConversionAcceptedData) {
  const { eventTime, actionSource, eventSourceUrl, userData, value, currency, contentIds } = c;
  return { eventTime, actionSource, eventSourceUrl, userData, value, currency, contentIds };
}
export type QueuedPayload = ReturnType<typeof payloadOf>;

/** Queue the deliveries of new conversions; also called by POST /events inside its append's transaction. */
export async function queueDeliveries(tx: Queryable, conversions: ConversionAcceptedData[]): Promise<void> {
  // One JSON parameter, a row per element (as the event store's group append): the payloads go as they
  // are, not escaped into an array literal.
  const rows = conversions.flatMap((c) => c.deliveries.map((d) => [
    d.deliveryId, c.organizationId, c.eventId, d.targetId, d.datasetId, d.eventName, c.platformEventId, d.testEventCode,
    c.eventTime, payloadOf(c), c.createdAt,
  ]));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO delivery_queue (id, organization_id, event_id, target_id, dataset_id, event_name, platform_event_id,
       test_event_code, event_time, payload, due_at, created_at)
     SELECT e->>0, e->>1, e->>2, e->>3, e->>4, e->>5, e->>6, e->>7, (e->>8)::timestamptz, e->9, (e->>10)::timestamptz, (e->>10)::timestamptz
     FROM jsonb_array_elements($1::jsonb) AS e
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

async function reschedule(tx: Client, retries: Data<'DeliveryRetryScheduled'>[]): Promise<void> {
  if (retries.length === 0) return;
  const latest = new Map<string, Data<'DeliveryRetryScheduled'>>();
  for (const r of retries) if ((latest.get(r.deliveryId)?.attempts ?? -1) < r.attempts) latest.set(r.deliveryId, r);
  retries = [...latest.values()];
  // Only forwards: a worker may already have written this retry, or a later attempt.
  await tx.query(
    `UPDATE delivery_queue q SET attempts = r.attempts, due_at = r.due, claimed_until = NULL, claim_token = NULL
     FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) AS r(id, org, attempts, due)
     WHERE q.id = r.id AND q.organization_id = r.org AND q.attempts < r.attempts`,
    [retries.map((r) => r.deliveryId), retries.map((r) => r.organizationId), retries.map((r) => r.attempts), retries.map((r) => r.nextAttemptAt)],
  );
}

/** One row per delivery an attempt names. */
type Attempt = { deliveryId: string; organizationId: string; attempt: number };

async function countAttempts(tx: Client, attempts: Attempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await tx.query(
    `UPDATE delivery_queue q SET attempts = GREATEST(q.attempts, r.attempt)
     FROM (SELECT id, org, max(attempt) AS attempt FROM unnest($1::text[], $2::text[], $3::int[]) AS u(id, org, attempt) GROUP BY id, org) AS r
     WHERE q.id = r.id AND q.organization_id = r.org AND q.attempts < r.attempt`,
    [attempts.map((a) => a.deliveryId), attempts.map((a) => a.organizationId), attempts.map((a) => a.attempt)],
  );
}

async function remove(tx: Client, done: { deliveryId: string; organizationId: string }[]): Promise<void> {
  if (done.length === 0) return;
  await tx.query(
    'DELETE FROM delivery_queue q USING unnest($1::text[], $2::text[]) AS r(id, org) WHERE q.id = r.id AND q.organization_id = r.org',
    [done.map((d) => d.deliveryId), done.map((d) => d.organizationId)],
  );
}

export const deliveryQueueProjector: Projector = {
  name: 'delivery_queue',
  tables: ['delivery_queue'],
  migrations: migrationsIn(import.meta.dirname),
  handles: [...QUEUEING_EVENT_TYPES, ...DELIVERY_EVENT_TYPES],
  async apply(tx: Client, recorded: RecordedEvent[]) {
    // Within a batch: queue first, then move, then remove; a delivery's terminal event is always its last.
    const events = recorded.map((e) => (isQueueingEvent(e.type) ? e : currentDeliveryEvent(e)));
    const of = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
    const each = <T extends 'DeliveriesAttempted' | 'DeliveriesAccepted'>(type: T) =>
      (of(type) as Data<T>[]).flatMap((b) => b.deliveries.map((d) => ({ deliveryId: d.deliveryId, organizationId: b.organizationId, attempt: d.attempts })));
    // A repeat that met new flows carries the conversion with only its new deliveries: queued the same way.
    await queueDeliveries(tx, [...of('ConversionAccepted'), ...of('ConversionDeliveriesAdded')] as ConversionAcceptedData[]);
    await countAttempts(tx, each('DeliveriesAttempted'));
    await reschedule(tx, of('DeliveryRetryScheduled') as Data<'DeliveryRetryScheduled'>[]);
    await remove(tx, [...each('DeliveriesAccepted'), ...(of('DeliveryFailed') as Data<'DeliveryFailed'>[]), ...(of('DeliveryCancelled') as Data<'DeliveryCancelled'>[])]);
  },
};
