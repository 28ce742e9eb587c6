// Read model of conversions (events_view) and their deliveries (deliveries_view), applied set-wise per batch.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client, Queryable } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { QUEUEING_EVENT_TYPES, isQueueingEvent, type ConversionAcceptedData } from '../../commands/conversion/conversion.ts';
import { DELIVERY_EVENT_TYPES, currentDeliveryEvent } from '../../commands/delivery/delivery.ts';
import { foldChanges, type DeliveryChange } from './changes.ts';

const columns = <T>(rows: T[][], count: number) => Array.from({ length: count }, (_, i) => rows.map((r) => r[i]));

/**
 * One statement for the conversions and their deliveries. Also called by POST /events inside the append's
 * transaction (read-your-writes without waiting for this projector, which then passes over those events
 * live: src/projections/live.ts); idempotent either way.
 */
export async function insertConversions(tx: Queryable, list: ConversionAcceptedData[]): Promise<void> {
  if (list.length === 0) return;
  // Rows as one JSON parameter per table, a row per element: cheaper to write than an array literal per column.
  const events = list.map((c) => [c.eventId, c.organizationId, c.sourceId, c.externalId, c.status, c.platformEventId, c.eventTime, c.value, c.currency ?? '', c.createdAt]);
  const deliveries = list.flatMap((c) => c.deliveries.map((d) => [d.deliveryId, c.organizationId, c.eventId, d.targetId, d.datasetId, d.eventName, c.platformEventId, d.mode, c.createdAt]));
  await tx.query(
    `WITH events AS (
       INSERT INTO events_view (id, organization_id, source_id, external_id, status, platform_event_id, event_time, value, currency, created_at, updated_at)
       SELECT e->>0, e->>1, e->>2, e->>3, e->>4, e->>5, (e->>6)::timestamptz, (e->>7)::float8, e->>8, (e->>9)::timestamptz, (e->>9)::timestamptz
       FROM jsonb_array_elements($1::jsonb) AS e
       ON CONFLICT (id) DO NOTHING
     )
     INSERT INTO deliveries_view (id, organization_id, event_id, target_id, dataset_id, event_name, platform_event_id, mode, status, created_at, updated_at)
     SELECT d->>0, d->>1, d->>2, d->>3, d->>4, d->>5, d->>6, d->>7, 'pending', (d->>8)::timestamptz, (d->>8)::timestamptz
     FROM jsonb_array_elements($2::jsonb) AS d
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(events), JSON.stringify(deliveries)],
  );
}

async function applyChanges(tx: Client, changes: DeliveryChange[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((c) => [c.id, c.organizationId, c.status, c.attempts, c.lastError, c.acceptedAt, c.nextAttemptAt, c.updatedAt]);
  await tx.query(
    `UPDATE deliveries_view d SET status = r.st, attempts = COALESCE(r.att, d.attempts), last_error = COALESCE(r.err, d.last_error),
       accepted_at = COALESCE(r.acc, d.accepted_at), next_attempt_at = r.nxt, updated_at = r.upd
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[])
       AS r(id, org, st, att, err, acc, nxt, upd)
     WHERE d.id = r.id AND d.organization_id = r.org`,
    columns(rows, 8),
  );
  // An event's deliveries are part of it: their changes are changes of the event (updated_since sees them).
  const latest = new Map<string, { org: string; at: string }>();
  for (const c of changes) {
    const seen = latest.get(c.eventId);
    if (!seen || seen.at < c.updatedAt) latest.set(c.eventId, { org: c.organizationId, at: c.updatedAt });
  }
  await tx.query(
    `UPDATE events_view e SET updated_at = GREATEST(e.updated_at, r.upd)
     FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS r(id, org, upd)
     WHERE e.id = r.id AND e.organization_id = r.org`,
    [[...latest.keys()], [...latest.values()].map((v) => v.org), [...latest.values()].map((v) => v.at)],
  );
}

/** A repeat that met new flows: its deliveries join the event, and are a change of it (updated_since sees them). */
async function addDeliveries(tx: Queryable, list: ConversionAcceptedData[]): Promise<void> {
  if (list.length === 0) return;
  await insertConversions(tx, list);
  await tx.query(
    `UPDATE events_view e SET updated_at = GREATEST(e.updated_at, r.upd)
     FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS r(id, org, upd)
     WHERE e.id = r.id AND e.organization_id = r.org`,
    [list.map((c) => c.eventId), list.map((c) => c.organizationId), list.map((c) => c.createdAt)],
  );
}

export const conversionsProjector: Projector = {
  name: 'conversions',
  tables: ['events_view', 'deliveries_view'],
  migrations: migrationsIn(import.meta.dirname),
  handles: [...QUEUEING_EVENT_TYPES, ...DELIVERY_EVENT_TYPES],
  async apply(tx: Client, events: RecordedEvent[]) {
    // A delivery's events always follow its conversion's, so inserting first and then updating keeps order.
    const of = (type: string) => events.filter((e) => e.type === type).map((e) => e.data as ConversionAcceptedData);
    await insertConversions(tx, of('ConversionAccepted'));
    await addDeliveries(tx, of('ConversionDeliveriesAdded'));
    await applyChanges(tx, foldChanges(events.filter((e) => !isQueueingEvent(e.type)).map(currentDeliveryEvent)));
  },
};
