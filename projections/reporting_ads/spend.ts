// Spend days: the newest sync of an (account, day, ad) replaces the earlier values; the 7- and 56-day
// buckets receive the difference, so they always equal the sum of their days. One set-based statement
// per chunk of syncs: the days travel as JSON and every key, bucket and difference is computed in SQL.
import type { Queryable } from '../../src/db/pool.ts';
import type { AdSpendSynced } from '../../commands/adaccount/spend.ts';

/*
 * $1: [{o: organisation, a: account, c: currency, d: days}] in event order. `input` numbers every day row
 * (event, then row), `latest` keeps the newest row per (organisation, day, account, ad), `days` writes
 * them and returns each one's difference against what the table held (RETURNING old, PostgreSQL 18), and
 * the outer statement adds those differences to the 7- and 56-day buckets. Amounts are rounded to 6
 * decimals, as the reports read them. Names and ads keep the newest value per id, found by hashing
 * (max of the row number) rather than by sorting every row.
 */
export const APPLY_SQL = `
WITH input AS MATERIALIZED (
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
newest AS (
  SELECT o, day, a, ad_id, max(seq) AS seq FROM input GROUP BY o, day, a, ad_id
),
days AS (
  INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                       spend, impressions, clicks, reach, platform_leads)
  SELECT i.o, 1, i.day, i.a, i.ad_id, i.campaign_id, i.adset_id, i.c, i.spend, i.impressions, i.clicks, i.reach, i.platform_leads
  FROM input i JOIN newest USING (o, day, a, ad_id, seq)
  ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET spend = excluded.spend,
    impressions = excluded.impressions, clicks = excluded.clicks, reach = excluded.reach, platform_leads = excluded.platform_leads
  RETURNING new.organization_id AS o, new.bucket AS day, new.account AS a, new.ad_id, new.campaign_id, new.adset_id, new.currency,
    new.spend - coalesce(old.spend, 0) AS spend, new.impressions - coalesce(old.impressions, 0) AS impressions,
    new.clicks - coalesce(old.clicks, 0) AS clicks, new.reach - coalesce(old.reach, 0) AS reach,
    new.platform_leads - coalesce(old.platform_leads, 0) AS platform_leads
),
ads AS (
  INSERT INTO report_ads (organization_id, ad_id, account, campaign_id, adset_id, currency)
  SELECT i.o, i.ad_id, i.a, i.campaign_id, i.adset_id, i.c
  FROM input i JOIN (SELECT o, ad_id, max(seq) AS seq FROM input GROUP BY o, ad_id) AS n USING (o, ad_id, seq)
  ON CONFLICT (organization_id, ad_id) DO UPDATE SET account = excluded.account, campaign_id = excluded.campaign_id,
    adset_id = excluded.adset_id, currency = excluded.currency
),
sources AS (
  SELECT o, campaign_id, campaign_name, adset_id, adset_name, ad_id, ad_name, max(seq) AS seq
  FROM input GROUP BY o, campaign_id, campaign_name, adset_id, adset_name, ad_id, ad_name
),
named AS (
  SELECT o, level, id, name, max(seq) AS seq
  FROM sources CROSS JOIN LATERAL (VALUES ('campaign', campaign_id, campaign_name), ('adset', adset_id, adset_name), ('ad', ad_id, ad_name)) AS n(level, id, name)
  WHERE id <> '' AND name <> ''
  GROUP BY o, level, id, name
),
names AS (
  INSERT INTO report_ad_names (organization_id, level, id, name)
  SELECT DISTINCT ON (o, level, id) o, level, id, name FROM named ORDER BY o, level, id, seq DESC
  ON CONFLICT (organization_id, level, id) DO UPDATE SET name = excluded.name
)
INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                     spend, impressions, clicks, reach, platform_leads)
SELECT o, g.grain, day - (((day - DATE '2001-01-01') % g.grain + g.grain) % g.grain), a, ad_id, max(campaign_id), max(adset_id),
       max(currency), sum(spend), sum(impressions), sum(clicks), sum(reach), sum(platform_leads)
FROM days CROSS JOIN (VALUES (7), (56)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5
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
  // The chunk's sorts and hashes fit in memory (the default 4 MB spills them to disk); for this transaction only.
  await db.query(`SELECT set_config('work_mem', '64MB', true)`);
  await db.query(APPLY_SQL, [json]);
}
