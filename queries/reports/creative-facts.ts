// Facts of the creative report per ad: one row per ad (and currency) with its sums over the range and, as
// columns, over each trend week. The database then groups 2,000 ads instead of 10,000 ad-weeks, and the sums
// are its own exact numeric totals; JavaScript parses a fifth of the rows. The tiles are signed
// (signed-tiles.ts): a row counts with +1, -1 or 0 in the total and may add to one week and be taken from another.
import type { Queryable } from '../../src/db/pool.ts';
import type { FactFilter } from './facts.ts';
import type { Sums } from './metrics.ts';
import type { FactTile } from './signed-tiles.ts';
import { allZero, asDigits, LEAD_SUMS, netSum, parseSums, SPEND_SUMS, sumOf } from './sums-text.ts';

export interface AdFacts {
  id: string;
  /** Leads only: the campaign their ad data named (the currency's fallback); '' for spend. */
  campaign_id: string;
  /** As stored: for leads, '' = the ad account's currency. */
  currency: string;
  /** Sums over the range (0 when the tiles were read for the weeks only). */
  total: Partial<Sums>;
  /** The trend's sums per week (index 0 = the last week; SPEND_WEEK_SUMS or LEAD_WEEK_SUMS); null when no fact fell in that week. */
  weeks: (Partial<Sums> | null)[];
}

/**
 * The sums a trend week needs (creative-row.ts: its spend, delivery and leads, and the fatigue rule's series); the
 * other columns are summed over the range only (at 4 weeks, 21 sums a spend row instead of 45, 9 a leads row instead of 45).
 */
const SPEND_WEEK_SUMS = ['spend', 'impressions', 'clicks', 'reach'] as const satisfies readonly (typeof SPEND_SUMS)[number][];
const LEAD_WEEK_SUMS = ['leads'] as const satisfies readonly (typeof LEAD_SUMS)[number][];

/**
 * The sums as one text per row: the total, then each week (empty when no row fell in it: a FILTER without rows
 * gives NULL), separated by '|', the columns of each by ' '. One field instead of 5 x (weeks + 1) halves what pg
 * parses. A sum is the rows added minus the rows taken away (a week's stays NULL when none was added).
 */
function sumsText(columns: readonly (keyof Sums)[], weekColumns: readonly (keyof Sums)[], weeks: number): string {
  const total = columns.map(netSum);
  const perWeek = Array.from({ length: weeks }, (_, w) => weekColumns.map((c) => asDigits(c, `${sumOf(c, `t.plus = ${w}`)} - coalesce(${sumOf(c, `t.minus = ${w}`)}, 0)`)));
  return `concat_ws('|', ${[total, ...perWeek].map((sums) => `concat_ws(' ', ${sums.join(', ')})`).join(', ')})`;
}

async function adFacts(
  db: Queryable, organizationId: string, table: 'report_spend_facts' | 'report_lead_facts', tiles: FactTile[], weeks: number, filter: FactFilter,
): Promise<AdFacts[]> {
  if (!tiles.length) return [];
  const leads = table === 'report_lead_facts';
  const columns = leads ? LEAD_SUMS : SPEND_SUMS;
  const weekColumns = leads ? LEAD_WEEK_SUMS : SPEND_WEEK_SUMS;
  const values: unknown[] = [
    organizationId, tiles.map((t) => t.grain), tiles.map((t) => t.start), tiles.map((t) => t.total), tiles.map((t) => t.plus), tiles.map((t) => t.minus),
  ];
  const conditions = ['f.organization_id = $1'];
  if (filter.campaignId !== undefined) conditions.push(`f.campaign_id = $${values.push(filter.campaignId)}`);
  // A hashed semi-join: `= ANY(array)` would compare every fact row with every ad of the list.
  if (filter.adIds !== undefined) conditions.push(`f.ad_id IN (SELECT unnest($${values.push(filter.adIds)}::text[]))`);
  // Organic leads have no creative: the report leaves them out.
  if (leads) conditions.push('NOT f.organic');
  const keys = leads ? 'f.ad_id, f.campaign_id, f.currency' : "f.ad_id, ''::text, f.currency";
  // OFFSET 0 keeps the subquery one parameterised index scan per tile (see facts.ts).
  const { rows } = await db.query<string[]>({
    text: `SELECT ${keys}, ${sumsText(columns, weekColumns, weeks)}
           FROM unnest($2::smallint[], $3::date[], $4::smallint[], $5::smallint[], $6::smallint[]) AS t(grain, bucket, total, plus, minus)
           CROSS JOIN LATERAL (SELECT * FROM ${table} x WHERE x.organization_id = $1 AND x.grain = t.grain AND x.bucket = t.bucket OFFSET 0) AS f
           WHERE ${conditions.join(' AND ')}
           GROUP BY ${leads ? keys : 'f.ad_id, f.currency'}
           ORDER BY ${leads ? keys : 'f.ad_id, f.currency'}`,
    values,
    rowMode: 'array',
  });
  const out: AdFacts[] = [];
  for (const r of rows) {
    const text = r[3];
    const total: Partial<Sums> = {};
    let at = parseSums(text, 0, columns, total);
    const perWeek: (Partial<Sums> | null)[] = [];
    for (let w = 0; w < weeks; w++) {
      if (at >= text.length || text.charCodeAt(at) === 124) { // '|': no fact that week
        perWeek.push(null);
        at++;
      } else {
        const sums: Partial<Sums> = {};
        at = parseSums(text, at, weekColumns, sums);
        perWeek.push(sums);
      }
    }
    const facts = { id: r[0], campaign_id: r[1], currency: r[2], total, weeks: perWeek };
    if (!isEmpty(facts, columns, weekColumns)) out.push(facts);
  }
  return out;
}

/** An ad with nothing but zeros is left out (sums-text.ts, allZero). */
function isEmpty(facts: AdFacts, columns: readonly (keyof Sums)[], weekColumns: readonly (keyof Sums)[]): boolean {
  return allZero(facts.total, columns) && facts.weeks.every((week) => allZero(week, weekColumns));
}

/** Spend and delivery per ad and currency, in id order; `weeks` week columns. */
export const spendPerAd = (db: Queryable, organizationId: string, tiles: FactTile[], weeks: number, filter: FactFilter = {}) =>
  adFacts(db, organizationId, 'report_spend_facts', tiles, weeks, filter);

/** Paid leads per ad, campaign and stored currency, in that order; `weeks` week columns. */
export const leadsPerAd = (db: Queryable, organizationId: string, tiles: FactTile[], weeks: number, filter: FactFilter = {}) =>
  adFacts(db, organizationId, 'report_lead_facts', tiles, weeks, filter);
