// Sums of the pre-aggregated report facts over a range read as signed tiles (signed-tiles.ts), grouped by
// campaign, ad set or ad. Every statement is scoped by organisation; values are always parameters.
import type { Queryable } from '../../src/db/pool.ts';
import type { SignedTile } from './signed-tiles.ts';
import type { Sums } from './metrics.ts';
import { allZero, asDigits, LEAD_SUMS, netSum, parseSums, SPEND_SUMS, sumOf } from './sums-text.ts';

export type GroupColumn = 'campaign_id' | 'adset_id' | 'ad_id';

export interface FactFilter {
  campaignId?: string;
  adsetId?: string;
  /** Only these ads (creative filters); undefined = every ad. */
  adIds?: string[];
}

export interface Grouping {
  by: GroupColumn;
}

export interface SpendGroup {
  id: string;
  campaign_id: string;
  adset_id: string;
  currency: string;
  spend: number;
  platform_leads: number;
  impressions: number;
  clicks: number;
  reach: number;
}

export interface LeadGroup {
  id: string;
  campaign_id: string;
  adset_id: string;
  organic: boolean;
  /** '' = the ad account's currency. */
  currency: string;
  leads: number;
  qualified: number;
  rejected: number;
  sales: number;
  revenue: number;
}

function column(by: GroupColumn): string {
  switch (by) {
    case 'campaign_id': return 'f.campaign_id';
    case 'adset_id': return 'f.adset_id';
    case 'ad_id': return 'f.ad_id';
    default: {
      const _never: never = by;
      throw new Error(`unknown grouping ${String(by)}`);
    }
  }
}

/** WHERE clause and parameters shared by both fact tables. Queries return rows ordered: the reports sum them in floating point. */
function where(organizationId: string, tiles: SignedTile[], filter: FactFilter) {
  const params: unknown[] = [organizationId, tiles.map((t) => t.grain), tiles.map((t) => t.start), tiles.map((t) => t.total)];
  const conditions = ['f.organization_id = $1'];
  if (filter.campaignId !== undefined) conditions.push(`f.campaign_id = $${params.push(filter.campaignId)}`);
  if (filter.adsetId !== undefined) conditions.push(`f.adset_id = $${params.push(filter.adsetId)}`);
  // A hashed semi-join: `= ANY(array)` would compare every fact row with every ad of the list.
  if (filter.adIds !== undefined) conditions.push(`f.ad_id IN (SELECT unnest($${params.push(filter.adIds)}::text[]))`);
  return { params, conditions: conditions.join(' AND ') };
}

/**
 * The facts of the tiles, one index range scan per tile. OFFSET 0 keeps the subquery a parameterised scan:
 * with statistics, a plain join is planned as a hash join over a parallel scan of the whole table (~1 s).
 */
const tilesOf = (table: 'report_spend_facts' | 'report_lead_facts') => `unnest($2::smallint[], $3::date[], $4::smallint[]) AS t(grain, bucket, total)
  CROSS JOIN LATERAL (SELECT * FROM ${table} x WHERE x.organization_id = $1 AND x.grain = t.grain AND x.bucket = t.bucket OFFSET 0) AS f`;

/**
 * The sums of the columns as one text (sums-text.ts), each the rows added less the rows taken away when
 * some tile is taken away.
 */
function sumsText(columns: readonly (keyof Sums)[], tiles: SignedTile[]): string {
  const signed = tiles.some((t) => t.total !== 1);
  return `concat_ws(' ', ${columns.map((c) => (signed ? netSum(c) : asDigits(c, sumOf(c)))).join(', ')}) AS sums`;
}

const hasSpend = (g: SpendGroup) => !allZero(g, SPEND_SUMS); // sums-text.ts: why all-zero rows go

/** The roll-up level that answers a grouping by campaign or ad set over every ad (no ad filter). */
function rollupLevel(grouping: Grouping, filter: FactFilter): 'campaign' | 'adset' | null {
  if (filter.adIds !== undefined || filter.adsetId !== undefined) return null;
  return grouping.by === 'campaign_id' ? 'campaign' : grouping.by === 'adset_id' ? 'adset' : null;
}

/** A row of id, campaign_id, adset_id, currency, sums. */
function toSpendGroup(r: string[]): SpendGroup {
  const group = { id: r[0], campaign_id: r[1], adset_id: r[2], currency: r[3], spend: 0, platform_leads: 0, impressions: 0, clicks: 0, reach: 0 };
  parseSums(r[4], 0, SPEND_SUMS, group);
  return group;
}

/** Spend per campaign or ad set from the roll-ups: one row per campaign or ad set and tile instead of one per ad. */
async function spendByLevel(db: Queryable, organizationId: string, tiles: SignedTile[], level: 'campaign' | 'adset', filter: FactFilter): Promise<SpendGroup[]> {
  const params: unknown[] = [organizationId, tiles.map((t) => t.grain), tiles.map((t) => t.start), tiles.map((t) => t.total), level];
  const campaign = filter.campaignId === undefined ? '' : `AND f.campaign_id = $${params.push(filter.campaignId)}`;
  const { rows } = await db.query<string[]>({
    text: `SELECT f.id, min(f.campaign_id) AS campaign_id, ${level === 'adset' ? 'f.id' : "''"} AS adset_id, f.currency, ${sumsText(SPEND_SUMS, tiles)}
     FROM unnest($2::smallint[], $3::date[], $4::smallint[]) AS t(grain, bucket, total)
     CROSS JOIN LATERAL (SELECT * FROM report_spend_levels x
                         WHERE x.organization_id = $1 AND x.level = $5 AND x.grain = t.grain AND x.bucket = t.bucket OFFSET 0) AS f
     WHERE f.organization_id = $1 ${campaign}
     GROUP BY f.id, f.currency
     ORDER BY f.id, f.currency`,
    values: params,
    rowMode: 'array',
  });
  return rows.map(toSpendGroup).filter(hasSpend);
}

export async function spendBy(db: Queryable, organizationId: string, tiles: SignedTile[], grouping: Grouping, filter: FactFilter = {}): Promise<SpendGroup[]> {
  if (!tiles.length) return [];
  const level = rollupLevel(grouping, filter);
  if (level) return spendByLevel(db, organizationId, tiles, level, filter);
  const { params, conditions } = where(organizationId, tiles, filter);
  const id = column(grouping.by);
  const { rows } = await db.query<string[]>({
    text: `SELECT ${id} AS id, min(f.campaign_id) AS campaign_id, min(f.adset_id) AS adset_id, f.currency, ${sumsText(SPEND_SUMS, tiles)}
     FROM ${tilesOf('report_spend_facts')}
     WHERE ${conditions}
     GROUP BY ${id}, f.currency
     ORDER BY ${id}, f.currency`,
    values: params,
    rowMode: 'array',
  });
  return rows.map(toSpendGroup).filter(hasSpend);
}

/** A row of id, campaign_id, adset_id, organic, currency, sums. */
function toLeadGroup(r: [string, string, string, boolean, string, string]): LeadGroup {
  const group = { id: r[0], campaign_id: r[1], adset_id: r[2], organic: r[3], currency: r[4], leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0 };
  parseSums(r[5], 0, LEAD_SUMS, group);
  return group;
}

const hasLeads = (g: LeadGroup) => !allZero(g, LEAD_SUMS); // sums-text.ts: why all-zero rows go

/** Leads per campaign from the roll-ups: one row per campaign and tile instead of one per ad. */
async function leadsByCampaign(db: Queryable, organizationId: string, tiles: SignedTile[], filter: FactFilter): Promise<LeadGroup[]> {
  const params: unknown[] = [organizationId, tiles.map((t) => t.grain), tiles.map((t) => t.start), tiles.map((t) => t.total)];
  const campaign = filter.campaignId === undefined ? '' : `AND f.campaign_id = $${params.push(filter.campaignId)}`;
  const { rows } = await db.query<[string, string, string, boolean, string, string]>({
    text: `SELECT f.campaign_id AS id, f.campaign_id, '' AS adset_id, f.organic, f.currency, ${sumsText(LEAD_SUMS, tiles)}
     FROM unnest($2::smallint[], $3::date[], $4::smallint[]) AS t(grain, bucket, total)
     CROSS JOIN LATERAL (SELECT * FROM report_lead_campaigns x
                         WHERE x.organization_id = $1 AND x.grain = t.grain AND x.bucket = t.bucket OFFSET 0) AS f
     WHERE f.organization_id = $1 ${campaign}
     GROUP BY f.campaign_id, f.organic, f.currency
     ORDER BY f.campaign_id, f.organic, f.currency`,
    values: params,
    rowMode: 'array',
  });
  return rows.map(toLeadGroup).filter(hasLeads);
}

export async function leadsBy(db: Queryable, organizationId: string, tiles: SignedTile[], grouping: Grouping, filter: FactFilter = {}): Promise<LeadGroup[]> {
  if (!tiles.length) return [];
  if (rollupLevel(grouping, filter) === 'campaign') return leadsByCampaign(db, organizationId, tiles, filter);
  const { params, conditions } = where(organizationId, tiles, filter);
  const id = column(grouping.by);
  const { rows } = await db.query<[string, string, string, boolean, string, string]>({
    text: `SELECT ${id} AS id, f.campaign_id, min(f.adset_id) AS adset_id, f.organic, f.currency, ${sumsText(LEAD_SUMS, tiles)}
     FROM ${tilesOf('report_lead_facts')}
     WHERE ${conditions}
     GROUP BY ${id}, f.campaign_id, f.organic, f.currency
     ORDER BY ${id}, f.campaign_id, f.organic, f.currency`,
    values: params,
    rowMode: 'array',
  });
  return rows.map(toLeadGroup).filter(hasLeads);
}
