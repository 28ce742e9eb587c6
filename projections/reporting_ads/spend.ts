// Spend days: the newest sync of an (account, day, ad) replaces the earlier values; the 7- and 56-day
// buckets receive the difference, so they always equal the sum of their days. One set-based statement
// per chunk of syncs: the days travel as JSON and every key, bucket and difference is computed in SQL.
import type { Queryable } from '../../src/db/pool.ts';
import type { AdSpendSynced } from '../../commands/adaccount/spend.ts';

/**
 * Monday 2001-01-01, the anchor of the buckets (projections/reporting_shared/days.ts: bucketOf); a bucket
 * of `grain` days starts at day - ((day - anchor) mod grain), written with a non-negative modulo.
 */
const BUCKET = (grain: number) => `(k.day - (((k.day - DATE '2001-01-01') % ${grain} + ${grain}) % ${grain}))`;

/*
 * $1: [{o: organisation, a: account, c: currency, d: days}] in event order. `input` numbers every day row
 * (event, then row), `latest` keeps the newest row per (organisation, day, account, ad), `stored` is what
 * the table held before (every sub-statement sees the same snapshot), `grains` turns each replaced day
 * into its differences at the coarser grains. Amounts are rounded to 6 decimals, as the reports read them.
 */
const APPLY_SQL = `
WITH input AS (
  SELECT e.o, e.a, e.c, d.date AS day, d.ad_id, d.campaign_id, d.adset_id, d.campaign_name, d.adset_name, d.ad_name,
         round(coalesce(d.spend, 0), 6) AS spend, coalesce(d.impressions, 0)::bigint AS impressions,
         coalesce(d.clicks, 0)::bigint AS clicks, coalesce(d.reach, 0)::bigint AS reach,
         coalesce(d.platform_leads, 0)::int AS platform_leads, en.n * 1000000 + d.m AS seq
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS en(ev, n)
  CROSS JOIN LATERAL jsonb_to_record(en.ev) AS e(o text, a text, c text)
  CROSS JOIN LATERAL ROWS FROM (jsonb_to_recordset(en.ev->'d') AS (date date, ad_id text, campaign_id text, adset_id text,
    campaign_name text, adset_name text, ad_name text, spend numeric, impressions numeric, clicks numeric, reach numeric,
    platform_leads numeric)) WITH ORDINALITY AS d(date, ad_id, campaign_id, adset_id, campaign_name, adset_name, ad_name, spend,
    impressions, clicks, reach, platform_leads, m)
),
latest AS (
  SELECT DISTINCT ON (o, day, a, ad_id) * FROM input ORDER BY o, day, a, ad_id, seq DESC
),
stored AS (
  SELECT k.o, k.day, k.a, k.ad_id, f.spend, f.impressions, f.clicks, f.reach, f.platform_leads
  FROM latest k JOIN report_spend_facts f
    ON f.organization_id = k.o AND f.grain = 1 AND f.bucket = k.day AND f.account = k.a AND f.ad_id = k.ad_id
),
days AS (
  INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                       spend, impressions, clicks, reach, platform_leads)
  SELECT o, 1, day, a, ad_id, campaign_id, adset_id, c, spend, impressions, clicks, reach, platform_leads FROM latest
  ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET spend = excluded.spend,
    impressions = excluded.impressions, clicks = excluded.clicks, reach = excluded.reach, platform_leads = excluded.platform_leads
),
grains AS (
  SELECT g.grain, CASE g.grain WHEN 7 THEN ${BUCKET(7)} ELSE ${BUCKET(56)} END AS bucket, k.*,
         k.spend - coalesce(s.spend, 0) AS d_spend, k.impressions - coalesce(s.impressions, 0) AS d_impressions,
         k.clicks - coalesce(s.clicks, 0) AS d_clicks, k.reach - coalesce(s.reach, 0) AS d_reach,
         k.platform_leads - coalesce(s.platform_leads, 0) AS d_platform_leads
  FROM latest k LEFT JOIN stored s ON s.o = k.o AND s.day = k.day AND s.a = k.a AND s.ad_id = k.ad_id
  CROSS JOIN (VALUES (7), (56)) AS g(grain)
),
ads AS (
  INSERT INTO report_ads (organization_id, ad_id, account, campaign_id, adset_id, currency)
  SELECT DISTINCT ON (o, ad_id) o, ad_id, a, campaign_id, adset_id, c FROM input ORDER BY o, ad_id, seq DESC
  ON CONFLICT (organization_id, ad_id) DO UPDATE SET account = excluded.account, campaign_id = excluded.campaign_id,
    adset_id = excluded.adset_id, currency = excluded.currency
),
names AS (
  INSERT INTO report_ad_names (organization_id, level, id, name)
  SELECT DISTINCT ON (o, level, id) o, level, id, name
  FROM input CROSS JOIN LATERAL (VALUES ('campaign', campaign_id, campaign_name), ('adset', adset_id, adset_name), ('ad', ad_id, ad_name)) AS n(level, id, name)
  WHERE id <> '' AND name <> ''
  ORDER BY o, level, id, seq DESC
  ON CONFLICT (organization_id, level, id) DO UPDATE SET name = excluded.name
)
INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                     spend, impressions, clicks, reach, platform_leads)
SELECT o, grain, bucket, a, ad_id, (array_agg(campaign_id ORDER BY seq DESC))[1], (array_agg(adset_id ORDER BY seq DESC))[1],
       (array_agg(c ORDER BY seq DESC))[1], sum(d_spend), sum(d_impressions), sum(d_clicks), sum(d_reach), sum(d_platform_leads)
FROM grains GROUP BY o, grain, bucket, a, ad_id
ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET spend = f.spend + excluded.spend,
  impressions = f.impressions + excluded.impressions, clicks = f.clicks + excluded.clicks, reach = f.reach + excluded.reach,
  platform_leads = f.platform_leads + excluded.platform_leads`;

/** Day rows per statement: a replay batch may hold thousands of 1,000-row syncs. */
const CHUNK_ROWS = 50_000;

/** In event order, a chunk of syncs per statement (each statement sees what the previous one wrote). */
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
  if (!events.some((e) => e.days.length)) return;
  const json = JSON.stringify(events.map((e) => ({ o: e.organizationId, a: e.account, c: e.currency, d: e.days })));
  await db.query(APPLY_SQL, [json]);
}
