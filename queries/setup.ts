// Sources, targets and flows as the CLI lists them and as conversions are routed by them.
import type { Queryable } from '../src/db/pool.ts';

export interface SourceRow {
  id: string;
  organization_id: string;
  kind: 'spreadsheet' | 'shop' | 'form';
  name: string;
  csv_url: string | null;
  columns: Record<string, string> | null;
  platform_form_id: string | null;
  platform_page_id: string | null;
  paused: boolean;
  created_at: Date;
}

export interface TargetRow {
  id: string;
  organization_id: string;
  dataset_id: string;
  mode: 'test' | 'live';
  test_code: string | null;
  created_at: Date;
}

export interface FlowRow {
  id: string;
  organization_id: string;
  source_id: string;
  target_id: string;
  event_name: string;
  trigger_kind: 'status' | 'stage';
  trigger_value: string;
  active: boolean;
  created_at: Date;
}

const SOURCE_COLUMNS = 'id, organization_id, kind, name, csv_url, columns, platform_form_id, platform_page_id, paused, created_at';

export async function listSources(db: Queryable, organizationId: string): Promise<SourceRow[]> {
  const { rows } = await db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM sources WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId]);
  return rows;
}

export async function getSource(db: Queryable, organizationId: string, sourceId: string): Promise<SourceRow | null> {
  const { rows } = await db.query<SourceRow>(`SELECT ${SOURCE_COLUMNS} FROM sources WHERE organization_id = $1 AND id = $2`, [organizationId, sourceId]);
  return rows[0] ?? null;
}

export async function listTargets(db: Queryable, organizationId: string): Promise<TargetRow[]> {
  const { rows } = await db.query<TargetRow>(
    'SELECT id, organization_id, dataset_id, mode, test_code, created_at FROM targets WHERE organization_id = $1 ORDER BY created_at, id',
    [organizationId],
  );
  return rows;
}

export async function listFlows(db: Queryable, organizationId: string): Promise<FlowRow[]> {
  const { rows } = await db.query<FlowRow>(
    `SELECT id, organization_id, source_id, target_id, event_name, trigger_kind, trigger_value, active, created_at
     FROM flows WHERE organization_id = $1 ORDER BY created_at, id`,
    [organizationId],
  );
  return rows;
}

/** Sealed access tokens of targets, for the delivery worker only. */
export async function targetTokens(db: Queryable, organizationId: string, targetIds: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; token_ciphertext: string }>(
    'SELECT id, token_ciphertext FROM targets WHERE organization_id = $1 AND id = ANY($2)',
    [organizationId, targetIds],
  );
  return new Map(rows.map((r) => [r.id, r.token_ciphertext]));
}

export interface Routing {
  source: { kind: SourceRow['kind']; paused: boolean } | null;
  /** The organisation's default phone country code (national numbers get it). */
  phoneCountryCode: string;
  /** Active flows of the source for the trigger, with their targets. */
  routes: { flowId: string; targetId: string; datasetId: string; eventName: string; mode: 'test' | 'live'; testCode: string | null }[];
}

export interface RoutingKey {
  organizationId: string;
  sourceId: string;
  trigger: { kind: string; value: string };
}

/** The source and the active flows that a conversion with this trigger follows. */
export async function routingFor(db: Queryable, organizationId: string, sourceId: string, trigger: { kind: string; value: string }): Promise<Routing> {
  const [routing] = await routingsFor(db, [{ organizationId, sourceId, trigger }]);
  return routing;
}

/** One round trip for any number of conversions: the routing of each key, in order. */
export async function routingsFor(db: Queryable, keys: RoutingKey[]): Promise<Routing[]> {
  const { rows } = await db.query<{
    ord: string; kind: SourceRow['kind']; paused: boolean; flow_id: string | null; target_id: string | null; dataset_id: string | null;
    event_name: string | null; mode: 'test' | 'live' | null; test_code: string | null; phone_country_code: string | null;
  }>({
    name: 'routings_for',
    text: `SELECT k.ord, s.kind, s.paused, (SELECT o.phone_country_code FROM organizations o WHERE o.id = s.organization_id) AS phone_country_code,
       f.id AS flow_id, t.id AS target_id, t.dataset_id, f.event_name, t.mode, t.test_code
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k(org, src, tk, tv, ord)
     JOIN sources s ON s.organization_id = k.org AND s.id = k.src
     LEFT JOIN flows f ON f.organization_id = s.organization_id AND f.source_id = s.id AND f.active
       AND f.trigger_kind = k.tk AND f.trigger_value = k.tv
     LEFT JOIN targets t ON t.organization_id = s.organization_id AND t.id = f.target_id
     ORDER BY k.ord, f.created_at, f.id`,
    values: [keys.map((k) => k.organizationId), keys.map((k) => k.sourceId), keys.map((k) => k.trigger.kind), keys.map((k) => k.trigger.value)],
  });
  const routings: Routing[] = keys.map(() => ({ source: null, phoneCountryCode: '48', routes: [] }));
  for (const r of rows) {
    const routing = routings[Number(r.ord) - 1];
    routing.source = { kind: r.kind, paused: r.paused };
    routing.phoneCountryCode = r.phone_country_code ?? '48';
    if (r.flow_id !== null && r.target_id !== null) {
      routing.routes.push({ flowId: r.flow_id, targetId: r.target_id, datasetId: r.dataset_id!, eventName: r.event_name!, mode: r.mode!, testCode: r.test_code });
    }
  }
  return routings;
}
