// The creative report: per creative group, the campaign metrics plus delivery, a weekly trend, momentum
// and a fatigue verdict, with totals per currency against the previous period.
import type { Queryable } from '../../src/db/pool.ts';
import { addDays } from '../../projections/reporting_shared/days.ts';
import { Currencies, syncItems, type AccountRow, type AdRow, type CreativeAdRow, type SyncItem } from './catalog.ts';
import { readCatalogRows, type CatalogReader } from './catalogCache.ts';
import { statementsAtMost } from './statements.ts';
import { spendBy } from './facts.ts';
import { leadsPerAd, spendPerAd, type AdFacts } from './creative-facts.ts';
import { creativeTiles, totalTiles, type FactTile } from './signed-tiles.ts';
import { byCurrency, fold, totals, type Cell, type TotalItem } from './assemble.ts';
import { selectGroups, type CreativeGroup } from './creative-groups.ts';
import { creativeRow, type CreativeRow } from './creative-row.ts';
import { addInto, emptySums, type Sums } from './metrics.ts';
import { isMaturing, previousRange, type CreativeParams, type Range } from './params.ts';
import type { ReportScope } from './campaign.ts';

export interface Week {
  index: number;
  from: string;
  to: string;
}

export interface CreativeReport {
  from: string;
  to: string;
  timezone: string;
  as_of: string;
  previous: Range;
  maturing: boolean;
  weeks: Week[];
  rows: CreativeRow[];
  totals: TotalItem[];
  syncs: SyncItem[];
  unattributed: number;
}

export function weeksOf(params: Pick<CreativeParams, 'to' | 'weeks'>): Week[] {
  return Array.from({ length: params.weeks }, (_, i) => {
    const to = addDays(params.to, -7 * (params.weeks - 1 - i));
    return { index: i + 1, from: addDays(to, -6), to };
  });
}

/**
 * Facts per ad over the weeks and over the range. When the range holds the weeks (as by default), one query
 * reads the weeks' tiles and the range's tiles before them, and the total of each row is the range's.
 */
async function weeksAndRange(params: CreativeParams, weeks: Week[], read: (tiles: FactTile[], weekColumns: number) => Promise<AdFacts[]>): Promise<[AdFacts[], AdFacts[]]> {
  if (params.from > params.weeksFrom) return Promise.all([read(creativeTiles(weeks), params.weeks), read(totalTiles(params.from, params.to), 0)]);
  const rows = await read(creativeTiles(weeks, params.from), params.weeks);
  return [rows, rows];
}

/**
 * Cells as fold() makes them (assemble.ts), per (ad, currency) over the range: spend first, then leads in their
 * currency, in row order, so every float sum adds in the same order.
 */
function cellsOf(spend: AdFacts[], leads: AdFacts[], currencies: Currencies): Iterable<Cell> {
  const cells = new Map<string, Cell>();
  const add = (id: string, currency: string, sums: Partial<Sums>) => {
    const key = `${id}\u0001${currency}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = { id, campaign_id: '', adset_id: '', currency, sums: emptySums() };
      cells.set(key, cell);
    }
    addInto(cell.sums, sums);
  };
  for (const s of spend) add(s.id, s.currency, s.total);
  for (const l of leads) add(l.id, currencies.resolve(l.currency, 'ad', l.id, l.campaign_id), l.total);
  return cells.values();
}

interface GroupWeeks {
  group: string;
  currency: string;
  /** By weeks before the last (0 = the week ending on `to`). */
  weeks: Map<number, Sums>;
}

/**
 * Sums per (group, currency) and week, added straight from the rows. The trend shows only spend (one row per
 * ad and currency, added in row order as through cells) and counts, so no per-ad cell is needed.
 */
function weeksByGroup(spend: AdFacts[], leads: AdFacts[], currencies: Currencies, groupOfAd: Map<string, string>): Map<string, GroupWeeks> {
  const out = new Map<string, GroupWeeks>();
  const add = (f: AdFacts, currency: string) => {
    const group = groupOfAd.get(f.id);
    if (group === undefined) return;
    const key = `${group}\u0001${currency}`;
    for (let w = 0; w < f.weeks.length; w++) {
      const sums = f.weeks[w];
      if (!sums) continue;
      let entry = out.get(key);
      if (!entry) out.set(key, (entry = { group, currency, weeks: new Map() }));
      const into = entry.weeks.get(w);
      if (into) addInto(into, sums);
      else entry.weeks.set(w, addInto(emptySums(), sums));
    }
  };
  for (const s of spend) add(s, s.currency);
  for (const l of leads) add(l, currencies.resolve(l.currency, 'ad', l.id, l.campaign_id));
  return out;
}

/** Sums per (group, currency) over the range. */
function byGroup(cells: Iterable<Cell>, groupOfAd: Map<string, string>): Map<string, { group: string; currency: string; sums: Sums }> {
  const out = new Map<string, { group: string; currency: string; sums: Sums }>();
  for (const cell of cells) {
    const group = groupOfAd.get(cell.id);
    if (group === undefined) continue;
    const key = `${group}\u0001${cell.currency}`;
    const entry = out.get(key);
    if (entry) addInto(entry.sums, cell.sums);
    else out.set(key, { group, currency: cell.currency, sums: addInto(emptySums(), cell.sums) });
  }
  return out;
}

/** What the report knows of the organisation's ads besides their facts, as the filters select them. */
interface CreativeCatalog {
  creativeAds: CreativeAdRow[];
  ads: AdRow[];
  accounts: AccountRow[];
  groups: Map<string, CreativeGroup>;
  groupOfAd: Map<string, string>;
  currencies: Currencies;
}

async function readCatalog(db: Queryable, scope: ReportScope, params: CreativeParams, read: CatalogReader): Promise<CreativeCatalog> {
  const { creativeAds, tags, ads, accounts } = await read(db, scope.organizationId);
  const groups = selectGroups(creativeAds, tags, params);
  const groupOfAd = new Map([...groups.values()].flatMap((g) => g.ad_ids.map((ad) => [ad, g.group_id] as [string, string])));
  return { creativeAds, ads, accounts, groups, groupOfAd, currencies: new Currencies(ads, creativeAds, accounts, scope.currency) };
}

/** `readRows`: how the ads, creatives, tags and accounts are read (the HTTP route keeps them between reports). */
export async function creativeReport(
  database: Queryable, scope: ReportScope, params: CreativeParams, language: 'pl' | 'en', readRows: CatalogReader = readCatalogRows,
): Promise<CreativeReport> {
  const db = statementsAtMost(database);
  const { organizationId } = scope;
  // The catalog (every ad with its group, tags and account: ~2,000 rows of each, unless kept) is read and parsed
  // while the database sums the facts, which without a group filter need nothing from it.
  const catalogRead = readCatalog(db, scope, params, readRows);
  const previous = previousRange(params);
  const byAd = { by: 'ad_id' as const };
  // Facts of ads outside the groups are dropped when folded into groups below, so the ad list only narrows
  // what is read; with no group filter, every ad with a creative is selected and the list filters nothing.
  const filtered = params.format !== undefined || params.tag !== undefined || params.adAccount !== undefined;
  const selected = { campaignId: params.campaign, adIds: filtered ? [...(await catalogRead).groupOfAd.keys()] : undefined };
  const everyAd = { campaignId: params.campaign };
  const weeks = weeksOf(params);
  // Asked first: over long ranges the longest statement, so with two statements at a time (statements.ts) it never
  // waits for the others.
  const leadsBeforeRead = leadsPerAd(db, organizationId, totalTiles(previous.from, previous.to), 0, selected);
  const [catalog, [spendWeeks, spendRange], [leadsWeeks, leadsRange], spendBefore, leadsBefore] = await Promise.all([
    catalogRead,
    weeksAndRange(params, weeks, (tiles, weekColumns) => spendPerAd(db, organizationId, tiles, weekColumns, selected)),
    // Every ad's leads over the range (for the unattributed count), the selected ones' weeks.
    filtered
      ? Promise.all([leadsPerAd(db, organizationId, creativeTiles(weeks), params.weeks, selected), leadsPerAd(db, organizationId, totalTiles(params.from, params.to), 0, everyAd)])
      : weeksAndRange(params, weeks, (tiles, weekColumns) => leadsPerAd(db, organizationId, tiles, weekColumns, everyAd)),
    // The previous period only feeds the totals per currency. When every ad with spend is in a group, the
    // campaign roll-ups give its spend with one row per campaign instead of one per ad.
    catalogRead.then(({ ads, groupOfAd }) => {
      const spendOfAll = !filtered && ads.every((a) => groupOfAd.has(a.ad_id));
      return spendBy(db, organizationId, totalTiles(previous.from, previous.to), spendOfAll ? { by: 'campaign_id' } : byAd, selected)
        .then((rows) => ({ rows, spendOfAll }));
    }),
    leadsBeforeRead,
  ]);
  const { creativeAds, ads, accounts, groups, groupOfAd, currencies } = catalog;
  const range = byGroup(cellsOf(spendRange, leadsRange, currencies), groupOfAd);
  const trend = weeksByGroup(spendWeeks, leadsWeeks, currencies, groupOfAd);
  const inGroups = (c: Cell) => groupOfAd.has(c.id);
  const before = [
    ...[...fold(spendBefore.rows, [], currencies, 'ad').cells.values()].filter((c) => spendBefore.spendOfAll || inGroups(c)),
    ...[...cellsOf([], leadsBefore, currencies)].filter(inGroups),
  ];
  const rows: CreativeRow[] = [];
  for (const key of new Set([...range.keys(), ...trend.keys()])) {
    const current = range.get(key) ?? trend.get(key)!;
    rows.push(creativeRow(groups.get(current.group) as CreativeGroup, current.currency, range.get(key)?.sums ?? emptySums(), trend.get(key)?.weeks ?? new Map(), weeks, language));
  }
  rows.sort((a, b) => b.metrics.spend - a.metrics.spend || b.metrics.leads - a.metrics.leads || a.group_id.localeCompare(b.group_id));
  return {
    from: params.from, to: params.to, timezone: scope.timezone, as_of: scope.asOf.toISOString(), previous,
    maturing: isMaturing(params, scope.today), weeks, rows,
    totals: totals(sumsByCurrency(range.values()), byCurrency(before)),
    syncs: syncItems(params.adAccount === undefined ? accounts : accounts.filter((a) => a.account === params.adAccount), params.from, params.to),
    unattributed: unattributedCreatives(leadsRange, new Set(creativeAds.map((a) => a.ad_id)), ads, params.adAccount),
  };
}

function sumsByCurrency(entries: Iterable<{ currency: string; sums: Sums }>): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const e of entries) out.set(e.currency, addInto(out.get(e.currency) ?? emptySums(), e.sums));
  return out;
}

/** Paid leads of the range whose ad has no known creative (or no ad id); with an account filter, only that account's ads. */
function unattributedCreatives(leads: AdFacts[], withCreative: Set<string>, ads: AdRow[], account: string | undefined): number {
  const accountOf = new Map(ads.map((a) => [a.ad_id, a.account]));
  let n = 0;
  for (const l of leads) {
    if (withCreative.has(l.id)) continue;
    if (account !== undefined && accountOf.get(l.id) !== account) continue;
    n += l.total.leads ?? 0;
  }
  return n;
}
