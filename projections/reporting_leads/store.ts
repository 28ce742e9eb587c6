// The SQL of the lead reporting read model: bulk loads and bulk upserts, one statement per table per batch.
import type { Client, Queryable } from '../../src/db/pool.ts';
import { copyFrom, copyLine } from '../../src/db/copy.ts';
import type { Stage } from '../../commands/contact/contact.ts';
import { GRAINS, bucketOf, dayNumber, dayText } from '../reporting_shared/days.ts';
import type { Contribution, ReportLead } from './lead-state.ts';

/** Time zones of the organisations named; the caller adds those created in the batch. */
export async function loadZones(db: Queryable, organizationIds: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ organization_id: string; timezone: string }>(
    'SELECT organization_id, timezone FROM report_zones WHERE organization_id = ANY($1::text[])',
    [organizationIds],
  );
  return new Map(rows.map((r) => [r.organization_id, r.timezone]));
}

export async function saveZones(db: Queryable, zones: { organizationId: string; timezone: string }[]): Promise<void> {
  if (!zones.length) return;
  await db.query(
    `INSERT INTO report_zones (organization_id, timezone) SELECT * FROM unnest($1::text[], $2::text[])
     ON CONFLICT (organization_id) DO NOTHING`,
    [zones.map((z) => z.organizationId), zones.map((z) => z.timezone)],
  );
}

interface LeadRow {
  organization_id: string; lead_id: string; day: string | null; organic: boolean; campaign_id: string; adset_id: string;
  ad_id: string; stage: Stage; qualified: boolean; sale_value: string | null; sale_currency: string;
}

/** Known leads among (organisation, lead id) pairs, keyed `org lead`. */
export async function loadLeads(db: Queryable, keys: { organizationId: string; leadId: string }[]): Promise<Map<string, ReportLead>> {
  if (!keys.length) return new Map();
  const { rows } = await db.query<LeadRow>(
    `SELECT l.organization_id, l.lead_id, l.day::text AS day, l.organic, l.campaign_id, l.adset_id, l.ad_id, l.stage, l.qualified,
            l.sale_value::text AS sale_value, l.sale_currency
     FROM report_leads l JOIN unnest($1::text[], $2::text[]) AS k(organization_id, lead_id)
       ON l.organization_id = k.organization_id AND l.lead_id = k.lead_id`,
    [keys.map((k) => k.organizationId), keys.map((k) => k.leadId)],
  );
  return new Map(rows.map((r) => [`${r.organization_id} ${r.lead_id}`, {
    organizationId: r.organization_id, leadId: r.lead_id, day: r.day, organic: r.organic, campaignId: r.campaign_id,
    adsetId: r.adset_id, adId: r.ad_id, stage: r.stage, qualified: r.qualified,
    saleValue: r.sale_value === null ? null : Number(r.sale_value), saleCurrency: r.sale_currency,
  }]));
}

export async function saveLeads(db: Queryable, leads: ReportLead[]): Promise<void> {
  if (!leads.length) return;
  const col = <T>(f: (l: ReportLead) => T) => leads.map(f);
  await db.query(
    `INSERT INTO report_leads (organization_id, lead_id, day, organic, campaign_id, adset_id, ad_id, stage, qualified, sale_value, sale_currency)
     SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::boolean[], $10::numeric[], $11::text[])
     ON CONFLICT (organization_id, lead_id) DO UPDATE SET day = excluded.day, organic = excluded.organic,
       campaign_id = excluded.campaign_id, adset_id = excluded.adset_id, ad_id = excluded.ad_id, stage = excluded.stage,
       qualified = excluded.qualified, sale_value = excluded.sale_value, sale_currency = excluded.sale_currency`,
    [col((l) => l.organizationId), col((l) => l.leadId), col((l) => l.day), col((l) => l.organic), col((l) => l.campaignId),
      col((l) => l.adsetId), col((l) => l.adId), col((l) => l.stage), col((l) => l.qualified), col((l) => l.saleValue),
      col((l) => l.saleCurrency)],
  );
}

const COPY_LEADS = `COPY report_leads (organization_id, lead_id, day, organic, campaign_id, adset_id, ad_id, stage, qualified, sale_value,
  sale_currency) FROM STDIN`;

/** Leads the caller knows are not in the table yet (a replay's new leads): COPY, no upsert, no array parameters. */
export async function copyNewLeads(db: Client, leads: ReportLead[]): Promise<void> {
  if (!leads.length) return;
  let data = '';
  for (const l of leads) {
    data += copyLine([l.organizationId, l.leadId, l.day, l.organic, l.campaignId, l.adsetId, l.adId, l.stage, l.qualified, l.saleValue, l.saleCurrency]);
  }
  await copyFrom(db, COPY_LEADS, data);
}

/**
 * $1..$13: the changed cells at every grain, one row per fact key. Each is added to its ad's fact row, and their
 * sums per campaign to the campaign's (report_lead_campaigns).
 */
const ADD_FACTS_SQL = `
WITH cells AS (
  SELECT * FROM unnest($1::text[], $2::smallint[], $3::date[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::int[], $10::int[], $11::int[], $12::int[], $13::bigint[])
    AS c(organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency, leads, qualified, rejected, sales, revenue_micros)
),
facts AS (
  INSERT INTO report_lead_facts AS f (organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency,
                                      leads, qualified, rejected, sales, revenue_micros)
  SELECT * FROM cells
  ON CONFLICT (organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency) DO UPDATE SET
    leads = f.leads + excluded.leads, qualified = f.qualified + excluded.qualified, rejected = f.rejected + excluded.rejected,
    sales = f.sales + excluded.sales, revenue_micros = f.revenue_micros + excluded.revenue_micros
)
INSERT INTO report_lead_campaigns AS f (organization_id, grain, bucket, organic, campaign_id, currency, leads, qualified, rejected, sales, revenue_micros)
SELECT organization_id, grain, bucket, organic, campaign_id, currency, sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue_micros)
FROM cells
GROUP BY 1, 2, 3, 4, 5, 6
ON CONFLICT (organization_id, grain, bucket, organic, campaign_id, currency) DO UPDATE SET
  leads = f.leads + excluded.leads, qualified = f.qualified + excluded.qualified, rejected = f.rejected + excluded.rejected,
  sales = f.sales + excluded.sales, revenue_micros = f.revenue_micros + excluded.revenue_micros`;

const ALL_ZERO = 'f.leads = 0 AND f.qualified = 0 AND f.rejected = 0 AND f.sales = 0 AND f.revenue_micros = 0';

/**
 * $1..$8: the keys of cells a batch took something from. Those whose sums came back to zero are deleted: a
 * rebuild never writes an all-zero cell, so keeping them here would make the live tables differ from a rebuilt
 * one (the reads leave such rows out either way).
 */
const DROP_ZERO_FACTS_SQL = `
WITH cells AS (
  SELECT * FROM unnest($1::text[], $2::smallint[], $3::date[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[])
    AS c(organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency)
),
facts AS (
  DELETE FROM report_lead_facts AS f USING cells AS c
  WHERE (f.organization_id, f.grain, f.bucket, f.organic, f.campaign_id, f.adset_id, f.ad_id, f.currency)
      = (c.organization_id, c.grain, c.bucket, c.organic, c.campaign_id, c.adset_id, c.ad_id, c.currency) AND ${ALL_ZERO}
)
DELETE FROM report_lead_campaigns AS f USING (SELECT DISTINCT organization_id, grain, bucket, organic, campaign_id, currency FROM cells) AS c
WHERE (f.organization_id, f.grain, f.bucket, f.organic, f.campaign_id, f.currency)
    = (c.organization_id, c.grain, c.bucket, c.organic, c.campaign_id, c.currency) AND ${ALL_ZERO}`;

const COUNTERS = ['leads', 'qualified', 'rejected', 'sales', 'revenueMicros'] as const;

/** Add the changed cells to every grain; a cell of a coarser grain may receive several days of the batch. */
export async function addFacts(db: Queryable, cells: Contribution[]): Promise<void> {
  if (!cells.length) return;
  const merged = new Map<string, { c: Contribution; grain: number; bucket: string }>();
  for (const grain of GRAINS) {
    for (const c of cells) {
      const bucket = grain === 1 ? c.key.day : dayText(bucketOf(dayNumber(c.key.day), grain));
      const k = c.key;
      const id = [k.organizationId, grain, bucket, k.organic, k.campaignId, k.adsetId, k.adId, k.currency].join('\u0001');
      const seen = merged.get(id);
      if (!seen) merged.set(id, { c: { key: k, counters: { ...c.counters } }, grain, bucket });
      else for (const f of COUNTERS) seen.c.counters[f] += c.counters[f];
    }
  }
  const rows = [...merged.values()];
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  await db.query(ADD_FACTS_SQL, [
    col((r) => r.c.key.organizationId), col((r) => r.grain), col((r) => r.bucket), col((r) => r.c.key.organic),
    col((r) => r.c.key.campaignId), col((r) => r.c.key.adsetId), col((r) => r.c.key.adId), col((r) => r.c.key.currency),
    col((r) => r.c.counters.leads), col((r) => r.c.counters.qualified), col((r) => r.c.counters.rejected),
    col((r) => r.c.counters.sales), col((r) => r.c.counters.revenueMicros),
  ]);
  // Only a cell something was taken from can have come back to zero (a lead moved away, a sale undone).
  const lowered = rows.filter((r) => COUNTERS.some((f) => r.c.counters[f] < 0));
  if (!lowered.length) return;
  const key = <T>(f: (r: (typeof rows)[number]) => T) => lowered.map(f);
  await db.query(DROP_ZERO_FACTS_SQL, [
    key((r) => r.c.key.organizationId), key((r) => r.grain), key((r) => r.bucket), key((r) => r.c.key.organic),
    key((r) => r.c.key.campaignId), key((r) => r.c.key.adsetId), key((r) => r.c.key.adId), key((r) => r.c.key.currency),
  ]);
}
