// The campaign report: spend and the lead cohort per campaign, ad set or ad, totals per currency against
// the previous period, organic leads, spend sync state, and leads with no id at the level.
import type { Queryable } from '../../src/db/pool.ts';
import { Currencies, namesOf, syncItems, type Names, type Level, type SyncItem } from './catalog.ts';
import { readCatalogRows, type CatalogReader } from './catalogCache.ts';
import { statementsAtMost } from './statements.ts';
import { leadsBy, spendBy, type FactFilter, type GroupColumn } from './facts.ts';
import { totalTiles, type SignedTile } from './signed-tiles.ts';
import { byCurrency, fold, organicSummary, totals, unattributedLeads, type Cell, type OrganicSummary, type TotalItem } from './assemble.ts';
import { metricsOf, moneyPlaces, type Metrics } from './metrics.ts';
import { isMaturing, previousRange, type CampaignParams, type Range } from './params.ts';

export interface ReportScope {
  organizationId: string;
  timezone: string;
  /** The organisation's currency: leads whose ad account is unknown count in it. */
  currency: string;
  /** Today in the organisation's zone, and the moment the report reflects. */
  today: string;
  asOf: Date;
}

export interface CampaignRow {
  id: string;
  name: string;
  campaign_id: string;
  campaign_name: string;
  adset_id: string | null;
  adset_name: string | null;
  ad_id: string | null;
  ad_name: string | null;
  currency: string;
  metrics: Metrics;
}

export interface CampaignReport {
  from: string;
  to: string;
  level: Level;
  timezone: string;
  as_of: string;
  previous: Range;
  maturing: boolean;
  totals: TotalItem[];
  rows: CampaignRow[];
  organic: OrganicSummary;
  syncs: SyncItem[];
  unattributed: number;
}

export function groupColumn(level: Level): GroupColumn {
  switch (level) {
    case 'campaign': return 'campaign_id';
    case 'adset': return 'adset_id';
    case 'ad': return 'ad_id';
    default: {
      const _never: never = level;
      throw new Error(`unknown level ${String(level)}`);
    }
  }
}

function labelRows(names: Names, level: Level, cells: Cell[]): CampaignRow[] {
  return cells.map((c) => {
    const adsetId = level === 'campaign' ? null : level === 'adset' ? c.id : c.adset_id;
    const name = names[level].get(c.id) ?? '';
    return {
      id: c.id, name, campaign_id: c.campaign_id, campaign_name: names.campaign.get(c.campaign_id) ?? '',
      adset_id: adsetId, adset_name: adsetId === null ? null : (names.adset.get(adsetId) ?? ''),
      ad_id: level === 'ad' ? c.id : null, ad_name: level === 'ad' ? name : null,
      currency: c.currency, metrics: metricsOf(c.sums, moneyPlaces(c.currency)),
    };
  });
}

/** The levels whose names a report's rows show: its own and those above it. */
const LEVELS_SHOWN: Record<Level, Level[]> = { campaign: ['campaign'], adset: ['campaign', 'adset'], ad: ['campaign', 'adset', 'ad'] };

/**
 * Ads with leads in the range or the previous period that only a creative sync knows (no spend row): one row per ad
 * with its campaign and ad set. Nothing is read when every ad with a creative has spend, as usual.
 */
async function creativeOnlyAds(db: Queryable, organizationId: string, tiles: SignedTile[][], ads: { ad_id: string }[], creativeAds: { ad_id: string }[], filter: FactFilter) {
  const withSpend = new Set(ads.map((a) => a.ad_id));
  const adIds = creativeAds.map((c) => c.ad_id).filter((id) => !withSpend.has(id));
  if (!adIds.length) return [];
  const groups = await Promise.all(tiles.map((t) => leadsBy(db, organizationId, t, { by: 'ad_id' }, { ...filter, adIds })));
  return groups.flat();
}

const bySpendThenLeads = (a: CampaignRow, b: CampaignRow) =>
  b.metrics.spend - a.metrics.spend || b.metrics.leads - a.metrics.leads || a.id.localeCompare(b.id) || a.currency.localeCompare(b.currency);

/**
 * The grouping of the previous period, which only feeds the totals per currency: its campaigns (or the filtered ad set)
 * at every level, so that it reads the campaign roll-ups with one row per campaign instead of one per ad.
 */
const previousGroupColumn = (params: CampaignParams): GroupColumn => (params.adset === undefined ? 'campaign_id' : 'adset_id');

const levelOf = (by: GroupColumn): Level => (by === 'campaign_id' ? 'campaign' : by === 'adset_id' ? 'adset' : 'ad');

/** `readRows`: how the ads, creatives and accounts are read (the HTTP route keeps them between reports). */
export async function campaignReport(database: Queryable, scope: ReportScope, params: CampaignParams, readRows: CatalogReader = readCatalogRows): Promise<CampaignReport> {
  const db = statementsAtMost(database);
  const { organizationId } = scope;
  const grouping = { by: groupColumn(params.level) };
  const previousGrouping = { by: previousGroupColumn(params) };
  const filter: FactFilter = { campaignId: params.campaign, adsetId: params.adset };
  const previous = previousRange(params);
  const [tiles, previousTiles] = [totalTiles(params.from, params.to), totalTiles(previous.from, previous.to)];
  const [spend, leads, spendBefore, leadsBefore, { ads, creativeAds, accounts }, names] = await Promise.all([
    spendBy(db, organizationId, tiles, grouping, filter),
    leadsBy(db, organizationId, tiles, grouping, filter),
    spendBy(db, organizationId, previousTiles, previousGrouping, filter),
    leadsBy(db, organizationId, previousTiles, previousGrouping, filter),
    readRows(db, organizationId),
    namesOf(db, organizationId, LEVELS_SHOWN[params.level]),
  ]);
  const currencies = new Currencies(ads, creativeAds, accounts, scope.currency);
  // Campaigns and ad sets whose leads count in the currency of ads only a creative sync knows (Currencies.learnParents):
  // the ad level's own rows resolve by ad, so only its previous period (read per campaign) learns them, apart.
  const previousCurrencies = params.level === 'ad' ? new Currencies(ads, creativeAds, accounts, scope.currency) : currencies;
  const perCampaign = params.level === 'ad' ? [previousTiles] : [tiles, previousTiles];
  for (const ad of await creativeOnlyAds(db, organizationId, perCampaign, ads, creativeAds, filter)) previousCurrencies.learnParents(ad.id, ad.campaign_id, ad.adset_id);
  const current = fold(spend, leads, currencies, params.level);
  const before = fold(spendBefore, leadsBefore, previousCurrencies, levelOf(previousGrouping.by));
  const rows = labelRows(names, params.level, [...current.cells.values()].filter((c) => c.id !== ''));
  return {
    from: params.from,
    to: params.to,
    level: params.level,
    timezone: scope.timezone,
    as_of: scope.asOf.toISOString(),
    previous,
    maturing: isMaturing(params, scope.today),
    totals: totals(byCurrency(current.cells.values()), byCurrency(before.cells.values())),
    rows: rows.sort(bySpendThenLeads),
    organic: organicSummary(current.organic),
    syncs: syncItems(accounts, params.from, params.to),
    unattributed: unattributedLeads(current.cells.values()),
  };
}
