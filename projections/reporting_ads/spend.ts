// Spend days: the newest sync of an (account, day, ad) replaces the earlier values; the 7- and 56-day
// buckets receive the difference, so they always equal the sum of their days. A batch is folded in
// memory (the newest row per day and ad, the newest campaign and names per ad) and written with a few
// set-based statements per chunk: arrays as parameters, no statement per event or per row.
import type { Queryable } from '../../src/db/pool.ts';
import type { AdSpendSynced, SpendDayData } from '../../commands/adaccount/spend.ts';
import { bucketStartSql } from '../reporting_shared/days.ts';
import { LatestNames, noteNames, saveNames } from '../reporting_shared/names.ts';

export interface DayRow {
  organizationId: string;
  account: string;
  currency: string;
  day: SpendDayData;
}

/*
 * $1..$13: the newest row per (organisation, day, account, ad) of the chunk. `days` writes them and
 * returns each one's difference against what the table held (RETURNING old, PostgreSQL 18); `buckets`
 * adds those differences to the ad's 7- and 56-day buckets, and the outer statement to its campaign's and
 * ad set's days and buckets (summed per ad set and day first: a tenth of the rows to spread over grains and
 * levels). A day row keeps the campaign and ad set it was first written with, so the differences land
 * where its earlier values did. Amounts are held as whole millionths (0005_reporting_spend_micros.sql).
 */
export const APPLY_SQL = `
WITH days AS (
  INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                       spend_micros, impressions, clicks, reach, platform_leads)
  SELECT o, 1, day, a, ad, c, s, cur, round(sp * 1000000), im, cl, re, pl
  FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::bigint[],
              $10::bigint[], $11::bigint[], $12::bigint[]) AS i(o, day, a, ad, c, s, cur, sp, im, cl, re, pl)
  ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET spend_micros = excluded.spend_micros,
    impressions = excluded.impressions, clicks = excluded.clicks, reach = excluded.reach, platform_leads = excluded.platform_leads
  RETURNING new.organization_id AS o, new.bucket AS day, new.account AS a, new.ad_id, new.campaign_id, new.adset_id, new.currency,
    new.spend_micros - coalesce(old.spend_micros, 0) AS spend_micros, new.impressions - coalesce(old.impressions, 0) AS impressions,
    new.clicks - coalesce(old.clicks, 0) AS clicks, new.reach - coalesce(old.reach, 0) AS reach,
    new.platform_leads - coalesce(old.platform_leads, 0) AS platform_leads
),
buckets AS (
  INSERT INTO report_spend_facts AS f (organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency,
                                       spend_micros, impressions, clicks, reach, platform_leads)
  SELECT o, g.grain, ${bucketStartSql('day', 'g.grain')}, a, ad_id, max(campaign_id), max(adset_id),
         max(currency), sum(spend_micros), sum(impressions), sum(clicks), sum(reach), sum(platform_leads)
  FROM days CROSS JOIN (VALUES (7), (56)) AS g(grain)
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, grain, bucket, account, ad_id) DO UPDATE SET spend_micros = f.spend_micros + excluded.spend_micros,
    impressions = f.impressions + excluded.impressions, clicks = f.clicks + excluded.clicks, reach = f.reach + excluded.reach,
    platform_leads = f.platform_leads + excluded.platform_leads
)
INSERT INTO report_spend_levels AS f (organization_id, level, grain, bucket, account, campaign_id, id, currency,
                                      spend_micros, impressions, clicks, reach, platform_leads)
SELECT o, l.level, g.grain, ${bucketStartSql('day', 'g.grain')}, a, campaign_id,
       CASE WHEN l.level = 'campaign' THEN campaign_id ELSE adset_id END, max(currency),
       sum(spend_micros), sum(impressions), sum(clicks), sum(reach), sum(platform_leads)
FROM (SELECT o, day, a, campaign_id, adset_id, max(currency) AS currency, sum(spend_micros) AS spend_micros, sum(impressions) AS impressions,
             sum(clicks) AS clicks, sum(reach) AS reach, sum(platform_leads) AS platform_leads
      FROM days GROUP BY o, day, a, campaign_id, adset_id) AS adset_days
CROSS JOIN (VALUES (1), (7), (56)) AS g(grain) CROSS JOIN (VALUES ('campaign'), ('adset')) AS l(level)
GROUP BY 1, 2, 3, 4, 5, 6, 7
ON CONFLICT (organization_id, level, grain, bucket, account, campaign_id, id) DO UPDATE SET spend_micros = f.spend_micros + excluded.spend_micros,
  impressions = f.impressions + excluded.impressions, clicks = f.clicks + excluded.clicks, reach = f.reach + excluded.reach,
  platform_leads = f.platform_leads + excluded.platform_leads`;

/** Day rows per statement: a replay batch may hold thousands of 1,000-row syncs. */
const CHUNK_ROWS = 100_000;

/** Syncs in event order, cut into chunks of about CHUNK_ROWS day rows. */
export function* spendChunks(events: AdSpendSynced[]): Generator<AdSpendSynced[]> {
  let chunk: AdSpendSynced[] = [];
  let rows = 0;
  for (const event of events) {
    chunk.push(event);
    rows += event.days.length;
    if (rows >= CHUNK_ROWS) {
      yield chunk;
      chunk = [];
      rows = 0;
    }
  }
  if (chunk.length) yield chunk;
}

/** In event order, a chunk of syncs per statement (each statement sees what the previous one wrote). */
export async function applySpend(db: Queryable, events: AdSpendSynced[]): Promise<void> {
  for (const chunk of spendChunks(events)) await applyChunk(db, chunk);
}

/** In event order: the newest row per (organisation, account, day, ad), the newest row per ad, and every name. */
function fold(events: AdSpendSynced[]): { days: DayRow[]; ads: DayRow[]; names: LatestNames } {
  const days = new Map<string, DayRow>();
  const ads = new Map<string, DayRow>();
  const names = new LatestNames();
  for (const e of events) {
    const prefix = `${e.organizationId}\u0001${e.account}\u0001`;
    const named = names.of(e.organizationId);
    for (const day of e.days) {
      const row = { organizationId: e.organizationId, account: e.account, currency: e.currency, day };
      days.set(`${prefix}${day.date}\u0001${day.ad_id}`, row);
      ads.set(`${e.organizationId}\u0001${day.ad_id}`, row);
      noteNames(named, day);
    }
  }
  return { days: [...days.values()], ads: [...ads.values()], names };
}

async function applyChunk(db: Queryable, events: AdSpendSynced[]): Promise<void> {
  const { days, ads, names } = fold(events);
  if (!days.length) return;
  const col = <T>(f: (r: DayRow) => T) => days.map(f);
  // The chunk's hash aggregate fits in memory (the default 4 MB spills it to disk); for this transaction only.
  await db.query(`SELECT set_config('work_mem', '64MB', true)`);
  await db.query(APPLY_SQL, [
    col((r) => r.organizationId), col((r) => r.day.date), col((r) => r.account), col((r) => r.day.ad_id),
    col((r) => r.day.campaign_id), col((r) => r.day.adset_id), col((r) => r.currency), col((r) => r.day.spend ?? 0),
    col((r) => r.day.impressions ?? 0), col((r) => r.day.clicks ?? 0), col((r) => r.day.reach ?? 0), col((r) => r.day.platform_leads ?? 0),
  ]);
  await saveAds(db, ads);
  await saveNames(db, 'report_ad_names', names);
}

/** Each ad's account, currency, campaign and ad set as its newest day row gives them (unchanged rows are not written again). */
export async function saveAds(db: Queryable, ads: DayRow[]): Promise<void> {
  const col = <T>(f: (r: DayRow) => T) => ads.map(f);
  await db.query(
    `INSERT INTO report_ads AS a (organization_id, ad_id, account, campaign_id, adset_id, currency)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (organization_id, ad_id) DO UPDATE SET account = excluded.account, campaign_id = excluded.campaign_id,
       adset_id = excluded.adset_id, currency = excluded.currency
     WHERE (a.account, a.campaign_id, a.adset_id, a.currency) IS DISTINCT FROM (excluded.account, excluded.campaign_id, excluded.adset_id, excluded.currency)`,
    [col((r) => r.organizationId), col((r) => r.day.ad_id), col((r) => r.account), col((r) => r.day.campaign_id),
      col((r) => r.day.adset_id), col((r) => r.currency)],
  );
}
