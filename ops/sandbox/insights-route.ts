// GET /{version}/act_{account}/insights at level=ad, one row per ad and day, numbers as strings like the platform.
import { invalidParameter, reduceData } from './graph-errors.ts';
import { decodeCursor, pageLimit, pageOf, parseFields, type GetAnswer, type GetRequest } from './http-util.ts';
import type { SandboxStore } from './store.ts';
import type { InsightSeed } from './types.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function timeRange(raw: string | null): { since: string; until: string } | null {
  if (raw === null) return null;
  try {
    const range = JSON.parse(raw) as { since?: unknown; until?: unknown };
    const { since, until } = range;
    if (typeof since !== 'string' || typeof until !== 'string' || !DAY.test(since) || !DAY.test(until) || since > until) return null;
    return { since, until };
  } catch {
    return null;
  }
}

/** Lead counts the way the platform reports instant-form and pixel leads: the same form leads under three
 *  action types, pixel leads under their own, and `lead` as the total of both. */
function actions(row: InsightSeed): Array<{ action_type: string; value: string }> {
  const pixel = row.pixelLeads ?? 0;
  const out: Array<{ action_type: string; value: string }> = [];
  if (row.clicks > 0) out.push({ action_type: 'link_click', value: String(row.clicks) });
  if (row.formLeads + pixel > 0) out.push({ action_type: 'lead', value: String(row.formLeads + pixel) });
  if (row.formLeads > 0) {
    out.push({ action_type: 'onsite_conversion.lead_grouped', value: String(row.formLeads) });
    out.push({ action_type: 'leadgen_grouped', value: String(row.formLeads) });
  }
  if (pixel > 0) out.push({ action_type: 'offsite_conversion.fb_pixel_lead', value: String(pixel) });
  return out;
}

function graphRow(row: InsightSeed, accountId: string, currency: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    account_id: accountId,
    campaign_id: row.campaign_id,
    campaign_name: row.campaign_name,
    adset_id: row.adset_id,
    adset_name: row.adset_name,
    ad_id: row.ad_id,
    ad_name: row.ad_name,
    spend: row.spend.toFixed(2),
    impressions: String(row.impressions),
    clicks: String(row.clicks),
    reach: String(row.reach),
    frequency: row.reach > 0 ? (row.impressions / row.reach).toFixed(6) : '0',
    account_currency: currency,
    date_start: row.date,
    date_stop: row.date,
  };
  const list = actions(row);
  // The platform leaves `actions` out of a row that has none.
  if (list.length > 0) out.actions = list;
  return out;
}

/** Keeps asked-for fields; the platform always adds date_start and date_stop to time-split rows. */
function pick(row: Record<string, unknown>, fields: Map<string, string | null> | null): Record<string, unknown> {
  if (fields === null) return row;
  const out: Record<string, unknown> = {};
  for (const [name] of fields) if (row[name] !== undefined) out[name] = row[name];
  out.date_start = row.date_start;
  out.date_stop = row.date_stop;
  return out;
}

export function insightsAnswer(store: SandboxStore, account: string, req: GetRequest): GetAnswer {
  const q = req.url.searchParams;
  if ((q.get('level') ?? 'ad') !== 'ad') return invalidParameter('(#100) The sandbox answers insights at level=ad only');
  if ((q.get('time_increment') ?? '1') !== '1') return invalidParameter('(#100) The sandbox answers insights with time_increment=1 only');
  const range = timeRange(q.get('time_range'));
  if (range === null) return invalidParameter('(#100) param time_range must be {"since":"YYYY-MM-DD","until":"YYYY-MM-DD"} with since <= until');
  if (store.insights.cells(account, range.since, range.until) > store.insightsCellLimit) return reduceData();
  const start = decodeCursor(q.get('after'));
  if (start === null) return invalidParameter('(#100) Invalid cursor');
  const limit = pageLimit(q.get('limit'), 5000);
  const info = store.catalog.accounts.get(account);
  const fields = parseFields(q.get('fields'));
  const { rows, more } = store.insights.page(account, range.since, range.until, start, limit);
  const data = rows.map((r) => pick(graphRow(r, account, info?.currency ?? 'PLN'), fields));
  return { status: 200, body: pageOf(data, req.url, start, limit, more, req.base) };
}
