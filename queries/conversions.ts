// Conversions and deliveries as GET /events, GET /events/{id} and GET /deliveries read them.
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';

export interface EventRow {
  id: string;
  source_id: string;
  external_id: string;
  status: string;
  platform_event_id: string;
  event_time: Date | null;
  value: number | null;
  currency: string;
  created_at: Date;
  updated_at: Date;
  /** The exact text of updated_at, for cursors (millisecond precision kept). */
  updated_key: string;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  target_id: string;
  dataset_id: string;
  event_name: string;
  platform_event_id: string;
  mode: 'test' | 'live';
  status: 'pending' | 'sending' | 'retry' | 'accepted' | 'failed' | 'cancelled';
  attempts: number;
  last_error: string;
  accepted_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  updated_key: string;
}

const KEY = `to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_key`;
const EVENT_COLUMNS = `id, source_id, external_id, status, platform_event_id, event_time, value, currency, created_at, updated_at, ${KEY}`;
const DELIVERY_COLUMNS = `id, event_id, target_id, dataset_id, event_name, platform_event_id, mode, status, attempts, last_error,
  accepted_at, next_attempt_at, created_at, updated_at, ${KEY}`;

/** Equality filters (column -> value, undefined skipped) as SQL beside the organisation's. */
function filters(organizationId: string, values: Record<string, string | undefined>): { where: string; params: unknown[] } {
  const params: unknown[] = [organizationId];
  const where = ['organization_id = $1'];
  for (const [column, value] of Object.entries(values)) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  return { where: where.join(' AND '), params };
}

export async function listEvents(db: Queryable, organizationId: string, page: Page, f: { source?: string; status?: string; external_id?: string }): Promise<EventRow[]> {
  const base = filters(organizationId, { source_id: f.source, status: f.status, external_id: f.external_id });
  const k = keyset(page, base.params.length + 1);
  const { rows } = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events_view WHERE ${base.where} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ${k.limit}`,
    [...base.params, ...k.params],
  );
  return rows;
}

export async function getEvent(db: Queryable, organizationId: string, eventId: string): Promise<EventRow | null> {
  const { rows } = await db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events_view WHERE organization_id = $1 AND id = $2`, [organizationId, eventId]);
  return rows[0] ?? null;
}

export async function deliveriesOfEvents(db: Queryable, organizationId: string, eventIds: string[]): Promise<DeliveryRow[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries_view WHERE organization_id = $1 AND event_id = ANY($2) ORDER BY created_at, id`,
    [organizationId, eventIds],
  );
  return rows;
}

export async function listDeliveries(db: Queryable, organizationId: string, page: Page, f: { status?: string; event?: string; target?: string }): Promise<DeliveryRow[]> {
  const base = filters(organizationId, { status: f.status, event_id: f.event, target_id: f.target });
  const k = keyset(page, base.params.length + 1);
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries_view WHERE ${base.where} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ${k.limit}`,
    [...base.params, ...k.params],
  );
  return rows;
}
