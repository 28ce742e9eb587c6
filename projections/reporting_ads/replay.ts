// Spend facts in a rebuild: every day row of the replayed syncs is copied as it comes into an unindexed
// temporary table (COPY: no upsert, no index, no difference to spread), and finish() derives the facts
// once from it: the newest values per (organisation, account, day, ad), then the ad buckets and the
// campaign and ad set roll-ups as plain sums, each grain from the one below. The same facts as applySpend()
// batch by batch, at a fraction of the cost (1.46M day rows in the benchmark).
import type { Client } from '../../src/db/pool.ts';
import { copyField, copyFrom } from '../../src/db/copy.ts';
import type { AdSpendSynced } from '../../commands/adaccount/spend.ts';
import { bucketStartSql } from '../reporting_shared/days.ts';
import { dropPrimaryKey } from '../reporting_shared/keys.ts';
import { LatestNames, noteNames, saveNames } from '../reporting_shared/names.ts';
import { saveAds, spendChunks, type DayRow } from './spend.ts';

const START_SQL = [
  // Temporary tables live in local buffers (8 MB by default): the replay's rows would go to disk at once.
  // The setting can only change before the session's first temporary table.
  `SELECT set_config('temp_buffers', '512MB', false) WHERE pg_my_temp_schema() = 0`,
  `DROP TABLE IF EXISTS spend_replay`,
  `CREATE TEMP TABLE spend_replay (
     seq bigint NOT NULL, organization_id text COLLATE "C" NOT NULL, day date NOT NULL, account text COLLATE "C" NOT NULL,
     ad_id text COLLATE "C" NOT NULL, campaign_id text COLLATE "C" NOT NULL, adset_id text COLLATE "C" NOT NULL,
     currency text COLLATE "C" NOT NULL, spend numeric NOT NULL, impressions bigint NOT NULL, clicks bigint NOT NULL,
     reach bigint NOT NULL, platform_leads bigint NOT NULL)`,
];

// The sync's own fields first: one text per sync, then each day row's.
const COPY_SQL = `COPY spend_replay (seq, organization_id, account, currency, day, ad_id, campaign_id, adset_id, spend, impressions,
  clicks, reach, platform_leads) FROM STDIN`;

const FACT_COLUMNS = 'organization_id, grain, bucket, account, ad_id, campaign_id, adset_id, currency, spend_micros, impressions, clicks, reach, platform_leads';
const SUMS = 'sum(spend_micros), sum(impressions), sum(clicks), sum(reach), sum(platform_leads)';

/**
 * The ad buckets of one grain summed from the rows of a finer one that divides it (days into weeks, weeks into
 * 56 days: both Monday-aligned), in key order so that the primary key built last sorts presorted rows.
 */
const rollUp = (from: number, to: number) => `INSERT INTO report_spend_facts (${FACT_COLUMNS})
   SELECT organization_id, ${to}, ${bucketStartSql('bucket', to)} AS b, account, ad_id,
          max(campaign_id), max(adset_id), max(currency), ${SUMS}
   FROM report_spend_facts WHERE grain = ${from}
   GROUP BY organization_id, b, account, ad_id
   ORDER BY b, account, ad_id, organization_id`;

const FINISH_SQL = [
  // The sort of every staged row and the hash aggregates fit in memory; for this transaction only.
  `SELECT set_config('work_mem', '512MB', true)`,
  // The primary keys put back at the end sort every fact row: in memory, not in runs on disk.
  `SELECT set_config('maintenance_work_mem', '512MB', true)`,
  // The newest sync's values of each day. The campaign and ad set are the newest sync's too, where applySpend() keeps the
  // first write's: the same unless an ad moved between campaigns, which the platform does not allow. Sorted by day first: the
  // organisation first made every comparison read its id, a third more time; within one organisation this is still key order.
  `INSERT INTO report_spend_facts (${FACT_COLUMNS})
   SELECT DISTINCT ON (day, account, ad_id, organization_id) organization_id, 1, day, account, ad_id, campaign_id, adset_id, currency,
          round(spend * 1000000), impressions, clicks, reach, platform_leads
   FROM spend_replay
   ORDER BY day, account, ad_id, organization_id, seq DESC`,
  `DROP TABLE spend_replay`,
  // Statistics of the day rows, or the roll-ups below are planned for an empty table (a sort of every row instead of a hash).
  `ANALYZE report_spend_facts`,
  // Weeks from days, 56 days from weeks: each row summed once, where both grains from the days summed every day twice.
  rollUp(1, 7),
  rollUp(7, 56),
  // Per ad set in each grain from the ad rows of that grain, then per campaign from those (applySpend() sums per ad set and
  // day first too); the days summed once instead of once per grain.
  `INSERT INTO report_spend_levels (organization_id, level, grain, bucket, account, campaign_id, id, currency,
                                    spend_micros, impressions, clicks, reach, platform_leads)
   SELECT organization_id, l.level, grain, bucket, account, campaign_id,
          CASE WHEN l.level = 'campaign' THEN campaign_id ELSE adset_id END, max(currency), ${SUMS}
   FROM (SELECT organization_id, grain, bucket, account, campaign_id, adset_id, max(currency) AS currency, sum(spend_micros) AS spend_micros,
                sum(impressions) AS impressions, sum(clicks) AS clicks, sum(reach) AS reach, sum(platform_leads) AS platform_leads
         FROM report_spend_facts GROUP BY organization_id, grain, bucket, account, campaign_id, adset_id) AS adsets
   CROSS JOIN (VALUES ('campaign'), ('adset')) AS l(level)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
   ORDER BY 2, 3, 4, 5, 6, 7, 1`,
];

/** Tables whose primary key is dropped for the load and built once after it: cheaper than keeping it row by row. */
const LOADED = ['report_spend_facts', 'report_spend_levels'];

/** One rebuild's spend: start() once, stage() per replayed batch, finish() once after the last. */
export class SpendReplay {
  /** Staged rows so far: the newest of a day and ad has the highest number (later in a sync wins too, as in fold()). */
  private rows = 0;
  private restoreKeys: string[] = [];
  /** Each ad's newest day row, per organisation and ad, and the newest names: written once, in finish(). */
  private readonly ads = new Map<string, Map<string, DayRow>>();
  private readonly names = new LatestNames();

  async start(db: Client): Promise<void> {
    for (const sql of START_SQL) await db.query(sql);
    for (const table of LOADED) this.restoreKeys.push(await dropPrimaryKey(db, table));
  }

  /** The batch's day rows into the staging table as they come; the ads and names remembered. */
  async stage(db: Client, events: AdSpendSynced[]): Promise<void> {
    for (const chunk of spendChunks(events)) {
      // One flat text per row, joined once: a row built by + or a template stays a rope of its parts, and a
      // chunk's ropes live (and are copied by the collector) until the COPY.
      const lines: string[] = [];
      for (const e of chunk) {
        const sync = `${copyField(e.organizationId)}\t${copyField(e.account)}\t${copyField(e.currency)}`;
        const ads = this.adsOf(e.organizationId);
        const names = this.names.of(e.organizationId);
        for (const d of e.days) {
          lines.push([++this.rows, sync, copyField(d.date), copyField(d.ad_id), copyField(d.campaign_id), copyField(d.adset_id), d.spend ?? 0,
            d.impressions ?? 0, d.clicks ?? 0, d.reach ?? 0, d.platform_leads ?? 0].join('\t'));
          keepAd(ads, e, d);
          noteNames(names, d);
        }
      }
      if (lines.length) await copyFrom(db, COPY_SQL, `${lines.join('\n')}\n`);
    }
  }

  private adsOf(organizationId: string): Map<string, DayRow> {
    let ads = this.ads.get(organizationId);
    if (!ads) this.ads.set(organizationId, (ads = new Map()));
    return ads;
  }

  /** The facts from the staged days, then the primary keys back: the live catch-up after it upserts on them. */
  async finish(db: Client): Promise<void> {
    await saveAds(db, [...this.ads.values()].flatMap((ads) => [...ads.values()]));
    await saveNames(db, 'report_ad_names', this.names);
    for (const sql of [...FINISH_SQL, ...this.restoreKeys]) await db.query(sql);
  }
}

/** The ad's newest day row, as saveAds() writes it: the entry is reused, one object per ad rather than per row. */
function keepAd(ads: Map<string, DayRow>, sync: AdSpendSynced, day: DayRow['day']): void {
  const kept = ads.get(day.ad_id);
  if (!kept) {
    ads.set(day.ad_id, { organizationId: sync.organizationId, account: sync.account, currency: sync.currency, day });
    return;
  }
  kept.account = sync.account;
  kept.currency = sync.currency;
  kept.day = day;
}
