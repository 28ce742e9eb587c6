// Read model of conversions (events_view) and their deliveries (deliveries_view), applied set-wise per batch.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client, Queryable } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { ConversionAcceptedData } from '../../commands/conversion/conversion.ts';
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
  // Rows as one JSON parameter each: cheaper to write than an array literal per column.
  const events = list.map((c) => ({ id: c.eventId, org: c.organizationId, src: c.sourceId, ext: c.externalId, st: c.status, pe: c.platformEventId, et: c.eventTime, val: c.value, cur: c.currency ?? '', ca: c.createdAt }));
  const deliveries = list.flatMap((c) => c.deliveries.map((d) => ({ id: d.deliveryId, org: c.organizationId, ev: c.eventId, tg: d.targetId, ds: d.datasetId, en: d.eventName, pe: c.platformEventId, md: d.mode, ca: c.createdAt })));
  await tx.query(
    `WITH events AS (
       INSERT INTO events_view (id, organization_id, source_id, external_id, status, platform_event_id, event_time, value, currency, created_at, updated_at)
       SELECT id, org, src, ext, st, pe, et, val, cur, ca, ca
       FROM json_to_recordset($1::json) AS r(id text, org text, src text, ext text, st text, pe text, et timestamptz, val float8, cur text, ca timestamptz)
       ON CONFLICT (id) DO NOTHING
     )
     INSERT INTO deliveries_view (id, organization_id, event_id, target_id, dataset_id, event_name, platform_event_id, mode, status, created_at, updated_at)
     SELECT id, org, ev, tg, ds, en, pe, md, 'pending', ca, ca
     FROM json_to_recordset($2::json) AS r(id text, org text, ev text, tg text, ds text, en text, pe text, md text, ca timestamptz)
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

export const conversionsProjector: Projector = {
  name: 'conversions',
  tables: ['events_view', 'deliveries_view'],
  migrations: migrationsIn(import.meta.dirname),
  handles: ['ConversionAccepted', ...DELIVERY_EVENT_TYPES],
  async apply(tx: Client, events: RecordedEvent[]) {
    // A delivery's events always follow its conversion's, so inserting first and then updating keeps order.
    await insertConversions(tx, events.filter((e) => e.type === 'ConversionAccepted').map((e) => e.data as ConversionAcceptedData));
    await applyChanges(tx, foldChanges(events.filter((e) => e.type !== 'ConversionAccepted').map(currentDeliveryEvent)));
  },
};
