// Spend days: the newest sync of an (account, day, ad) replaces the earlier values; the 7- and 56-day
// buckets receive the difference, so they always equal the sum of their days.
import type { Queryable } from '../../src/db/pool.ts';
import { GRAINS, bucketOf, dayNumber, dayText } from '../reporting_shared/days.ts';
import type { AdSpendSynced } from '../../commands/adaccount/spend.ts';

interface Delivery {
  spend: number;
  impressions: number;
  clicks: number;
  reach: number;
  platformLeads: number;
}

interface SpendCell {
  organizationId: string;
  day: string;
  account: string;
  adId: string;
  campaignId: string;
  adsetId: string;
  currency: string;
  values: Delivery;
}

const FIELDS = ['spend', 'impressions', 'clicks', 'reach', 'platformLeads'] as const;
const zero = (): Delivery => ({ spend: 0, impressions: 0, clicks: 0, reach: 0, platformLeads: 0 });
const cellKey = (c: { organizationId: string; day: string; account: string; adId: string }) => `${c.organizationId}\u0001${c.day}\u0001${c.account}\u0001${c.adId}`;
const money = (x: number) => Math.round(x * 1e6) / 1e6;

function cellsOf(events: AdSpendSynced[]): SpendCell[] {
  return events.flatMap((e) => e.days.map((d) => ({
    organizationId: e.organizationId, day: d.date, account: e.account, adId: d.ad_id, campaignId: d.campaign_id,
    adsetId: d.adset_id, currency: e.currency,
    values: { spend: Number(d.spend) || 0, impressions: Number(d.impressions) || 0, clicks: Number(d.clicks) || 0, reach: Number(d.reach) || 0, platformLeads: Number(d.platform_leads) || 0 },
  })));
}

async function loadDays(db: Queryable, cells: SpendCell[]): Promise<Map<string, Delivery>> {
  const { rows } = await db.query<{ organization_id: string; day: string; account: string; ad_id: string; spend: string; impressions: string; clicks: string; reach: string; platform_leads: number }>(
    `SELECT f.organization_id, f.bucket::text AS day, f.account, f.ad_id, f.spend::text AS spend, f.impressions, f.clicks, f.reach, f.platform_leads
     FROM report_spend_facts f JOIN unnest($1::text[], $2::date[], $3::text[], $4::text[]) AS k(organization_id, day, account, ad_id)
       ON f.organization_id = k.organization_id AND f.grain = 1 AND f.bucket = k.day AND f.account = k.account AND f.ad_id = k.ad_id`,
    [cells.map((c) => c.organizationId), cells.map((c) => c.day), cells.map((c) => c.account), cells.map((c) => c.adId)],
  );
  return new Map(rows.map((r) => [cellKey({ organizationId: r.organization_id, day: r.day, account: r.account, adId: r.ad_id }), {
    spend: Number(r.spend), impressions: Number(r.impressions), clicks: Number(r.clicks), reach: Number(r.reach), platformLeads: Number(r.platform_leads),
  }]));
}

interface FactRow { cell: SpendCell; grain: number; bucket: string; values: Delivery }

/** Day rows carry the new values; bucket rows carry the change against what the store held before. */
function factRows(cells: SpendCell[], stored: Map<string, Delivery>): { days: FactRow[]; buckets: FactRow[] } {
  const latest = new Map<string, SpendCell>();
  for (const c of cells) latest.set(cellKey(c), c);
  const days: FactRow[] = [];
  const buckets = new Map<string, FactRow>();
  for (const [key, cell] of latest) {
    const before = stored.get(key) ?? zero();
    days.push({ cell, grain: 1, bucket: cell.day, values: cell.values });
    for (const grain of GRAINS.slice(1)) {
      const bucket = dayText(bucketOf(dayNumber(cell.day), grain));
      const id = `${grain}\u0001${bucket}\u0001${cell.organizationId}\u0001${cell.account}\u0001${cell.adId}`;
      const row = buckets.get(id) ?? { cell, grain, bucket, values: zero() };
      for (const f of FIELDS) row.values[f] += cell.values[f] - before[f];
      buckets.set(id, row);
    }
  }
  return { days, buckets: [...buckets.values()] };
}

async function upsert(db: Queryable, rows: FactRow[], mode: 'replace' | 'add'): Promise<void> {
  if (!rows.length) return;
  const col = <T>(f: (r: FactRow) => T) => rows.map(f);
  const set = mode === 'replace'
    ? FIELDS_SQL.map((f) => `${f} = excluded.${f}`).join(', ')
    : FIELDS_SQL.map((f) => `${f} = f.${f} + excluded.${f}`).join(', ');
  await db.query(
    `INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                          spend, impressions, clicks, reach, platform_leads)
     SELECT * FROM unnest($1::text[], $2::smallint[], $3::date[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::numeric[], $10::bigint[], $11::bigint[], $12::bigint[], $13::int[])
     ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET ${set}`,
    [col((r) => r.cell.organizationId), col((r) => r.grain), col((r) => r.bucket), col((r) => r.cell.account), col((r) => r.cell.adId),
      col((r) => r.cell.campaignId), col((r) => r.cell.adsetId), col((r) => r.cell.currency), col((r) => money(r.values.spend)),
      col((r) => r.values.impressions), col((r) => r.values.clicks), col((r) => r.values.reach), col((r) => r.values.platformLeads)],
  );
}

const FIELDS_SQL = ['spend', 'impressions', 'clicks', 'reach', 'platform_leads'];

/** Which account, campaign and ad set each ad belongs to (the newest sync wins). */
async function saveAds(db: Queryable, cells: SpendCell[]): Promise<void> {
  const latest = new Map<string, SpendCell>();
  for (const c of cells) latest.set(`${c.organizationId}\u0001${c.adId}`, c);
  const rows = [...latest.values()];
  if (!rows.length) return;
  await db.query(
    `INSERT INTO report_ads (organization_id, ad_id, account, campaign_id, adset_id, currency)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (organization_id, ad_id) DO UPDATE SET account = excluded.account, campaign_id = excluded.campaign_id,
       adset_id = excluded.adset_id, currency = excluded.currency`,
    [rows.map((r) => r.organizationId), rows.map((r) => r.adId), rows.map((r) => r.account), rows.map((r) => r.campaignId),
      rows.map((r) => r.adsetId), rows.map((r) => r.currency)],
  );
}

/** Rows per round of statements: a replay batch may hold thousands of 1,000-row syncs. */
const CHUNK_ROWS = 20_000;

/** In event order, a few thousand day rows at a time (each round sees what the previous one wrote). */
export async function applySpend(db: Queryable, events: AdSpendSynced[]): Promise<void> {
  let chunk: AdSpendSynced[] = [];
  let rows = 0;
  for (const event of events) {
    chunk.push(event);
    rows += event.days.length;
    if (rows >= CHUNK_ROWS) {
      await applyChunk(db, chunk);
      chunk = [];
      rows = 0;
    }
  }
  await applyChunk(db, chunk);
}

async function applyChunk(db: Queryable, events: AdSpendSynced[]): Promise<void> {
  const cells = cellsOf(events);
  if (!cells.length) return;
  const stored = await loadDays(db, cells);
  const { days, buckets } = factRows(cells, stored);
  await upsert(db, days, 'replace');
  await upsert(db, buckets, 'add');
  await saveAds(db, cells);
}
