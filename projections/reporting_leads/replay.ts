// Lead facts in a rebuild: the replay keeps the lead rows only (as apply() does, without the fact
// differences), and finish() derives every cohort cell once from the final lead rows: the same sums
// contributions() gives, per day and then per 7 and 56 days, with a few INSERT ... SELECT instead of
// three upserted cells per lead and batch.
import type { Client, Queryable } from '../../src/db/pool.ts';
import { bucketStartSql } from '../reporting_shared/days.ts';
import { dropPrimaryKey } from '../reporting_shared/keys.ts';
import { LatestNames, saveNames } from '../reporting_shared/names.ts';

/** 2^24 bits (2 MB), 7 hashes: about 1% of false positives at 1.7M leads, more beyond (each one a needless load, never a wrong one). */
const BLOOM_BITS = 1 << 24;
const BLOOM_HASHES = 7;

const COLUMNS = 'organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency, leads, qualified, rejected, sales, revenue_micros';
const NOT_ZERO = 'HAVING sum(leads) <> 0 OR sum(qualified) <> 0 OR sum(rejected) <> 0 OR sum(sales) <> 0 OR sum(revenue_micros) <> 0';

/*
 * contributions() in SQL, per day: a lead counts once in its ad's currency (''), with its revenue when the
 * sale named no currency; a sale in a named currency adds a revenue-only cell in that currency. A cell
 * whose sums are all zero is not written (apply() never writes a cell that did not change).
 */
const DAYS_SQL = `
INSERT INTO report_lead_facts (${COLUMNS})
SELECT organization_id, 1, day, organic, campaign_id, adset_id, ad_id, currency, sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue_micros)
FROM (
  SELECT organization_id, day, organic, campaign_id, adset_id, ad_id, '' AS currency, 1 AS leads, qualified::int AS qualified,
         (stage = 'rejected')::int AS rejected, (stage = 'sold')::int AS sales,
         CASE WHEN stage = 'sold' AND sale_currency = '' THEN round(coalesce(sale_value, 0) * 1000000)::bigint ELSE 0 END AS revenue_micros
  FROM report_leads WHERE day IS NOT NULL
  UNION ALL
  SELECT organization_id, day, organic, campaign_id, adset_id, ad_id, sale_currency, 0, 0, 0, 0, round(sale_value * 1000000)::bigint
  FROM report_leads WHERE day IS NOT NULL AND stage = 'sold' AND sale_value IS NOT NULL AND sale_currency <> ''
) AS c
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
${NOT_ZERO}
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;

/** A coarser grain from the finer one it nests on (7 from days, 56 from weeks): far fewer rows than from the leads. */
const coarser = (grain: number, from: number) => `
INSERT INTO report_lead_facts (${COLUMNS})
SELECT organization_id, ${grain}, ${bucketStartSql('bucket', grain)}, organic, campaign_id,
       adset_id, ad_id, currency, sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue_micros)
FROM report_lead_facts WHERE grain = ${from}
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
${NOT_ZERO}
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;

const CAMPAIGN_COLUMNS = 'organization_id, grain, bucket, organic, campaign_id, currency, leads, qualified, rejected, sales, revenue_micros';

/** The campaign roll-ups of a grain from the rows of `source` at grain `from` (the ad days, then the campaign days and weeks). */
const campaignRollUp = (source: 'report_lead_facts' | 'report_lead_campaigns', from: number, grain: number) => `
INSERT INTO report_lead_campaigns (${CAMPAIGN_COLUMNS})
SELECT organization_id, ${grain}, ${bucketStartSql('bucket', grain)}, organic, campaign_id, currency,
       sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue_micros)
FROM ${source} WHERE grain = ${from}
GROUP BY 1, 2, 3, 4, 5, 6
${NOT_ZERO}
ORDER BY 2, 3, 4, 5, 6, 1`;

async function deriveLeadFacts(db: Queryable): Promise<void> {
  // The aggregate of every lead fits in memory; for this transaction only.
  await db.query(`SELECT set_config('work_mem', '512MB', true)`);
  // The primary key put back after the derivation sorts every fact row: in memory, not in runs on disk.
  await db.query(`SELECT set_config('maintenance_work_mem', '512MB', true)`);
  await db.query(DAYS_SQL);
  // Statistics of the days, or the roll-ups below are planned for an empty table.
  await db.query('ANALYZE report_lead_facts');
  await db.query(coarser(7, 1));
  await db.query(coarser(56, 7));
  await db.query(campaignRollUp('report_lead_facts', 1, 1));
  await db.query(campaignRollUp('report_lead_campaigns', 1, 7));
  await db.query(campaignRollUp('report_lead_campaigns', 7, 56));
}

/**
 * What a replay remembers between batches, so that it does not ask the database what it wrote itself: which
 * leads it wrote (a Bloom filter: a lead it may have written is loaded, one it surely did not is new, which
 * most leads of a replay are), the organisations' zones, and the newest names (written once, by finish()).
 */
export class LeadReplay {
  private readonly written = new Uint32Array(BLOOM_BITS / 32);
  readonly zones = new Map<string, string>();
  readonly names = new LatestNames();

  private a = 0;
  private b = 0;
  private restoreFactsKey = 'SELECT 1';

  /** The facts are only written by finish(): their primary key is built once after them, not row by row. */
  async start(db: Client): Promise<void> {
    this.restoreFactsKey = await dropPrimaryKey(db, 'report_lead_facts');
  }

  /** The names, every cohort cell from the final lead rows, then the facts' primary key: the live catch-up after it upserts on it. */
  async finish(db: Client): Promise<void> {
    await saveNames(db, 'report_lead_names', this.names);
    await deriveLeadFacts(db);
    await db.query(this.restoreFactsKey);
  }

  /** Two FNV-1a style hashes of the key; position i is a + i * b (Kirsch-Mitzenmacher). */
  private hash(key: string): void {
    let a = 0x811c9dc5;
    let b = 0x01000193;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    this.a = a;
    this.b = b | 1;
  }

  private position(i: number): number {
    return ((this.a + Math.imul(i, this.b)) >>> 0) % BLOOM_BITS;
  }

  mayHaveWritten(key: string): boolean {
    this.hash(key);
    for (let i = 0; i < BLOOM_HASHES; i++) {
      const p = this.position(i);
      if ((this.written[p >>> 5] & (1 << (p & 31))) === 0) return false;
    }
    return true;
  }

  rememberWritten(key: string): void {
    this.hash(key);
    for (let i = 0; i < BLOOM_HASHES; i++) {
      const p = this.position(i);
      this.written[p >>> 5] |= 1 << (p & 31);
    }
  }
}
