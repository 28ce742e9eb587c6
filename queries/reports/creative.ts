// The creative report: per creative group, the campaign metrics plus delivery, a weekly trend, momentum
// and a fatigue verdict, with totals per currency against the previous period.
import type { Queryable } from '../../src/db/pool.ts';
import { addDays, tileRange } from '../../projections/reporting_shared/days.ts';
import { Currencies, listAccounts, listAds, listCreativeAds, listGroupTags, syncItems, type SyncItem } from './catalog.ts';
import { leadsBy, spendBy } from './facts.ts';
import { leadsPerAd, spendPerAd, type AdFacts, type WeekTile } from './creative-facts.ts';
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

/** Each week tiled on its own (a 7-day bucket when the week is a Monday-to-Sunday one, else its days): no tile spans two weeks. */
const weekTiles = (weeks: Week[]): WeekTile[] => weeks.flatMap((w) => tileRange(w.from, w.to).map((t) => ({ ...t, week: weeks.length - w.index })));

/** The range's tiles, every one counted in the total only (its week is past the trend's). */
const rangeTiles = (params: CreativeParams): WeekTile[] => tileRange(params.from, params.to).map((t) => ({ ...t, week: params.weeks }));

/**
 * Facts per ad over the weeks and over the range. When the range holds the weeks (as by default), one query
 * reads the weeks' tiles and the range's tiles before them, and the total of each row is the range's.
 */
async function weeksAndRange(params: CreativeParams, weeks: Week[], read: (tiles: WeekTile[], weekColumns: number) => Promise<AdFacts[]>): Promise<[AdFacts[], AdFacts[]]> {
  if (params.from > params.weeksFrom) return Promise.all([read(weekTiles(weeks), params.weeks), read(rangeTiles(params), 0)]);
  const head = params.from < params.weeksFrom ? tileRange(params.from, addDays(params.weeksFrom, -1)).map((t) => ({ ...t, week: params.weeks })) : [];
  const rows = await read([...head, ...weekTiles(weeks)], params.weeks);
  return [rows, rows];
}

/**
 * Cells as fold() makes them (assemble.ts), per (ad, currency) over the range or per (ad, currency, week):
 * spend first, then leads in their currency, in row order, so every float sum adds in the same order.
 */
function cellsOf(spend: AdFacts[], leads: AdFacts[], currencies: Currencies, perWeek: boolean): Iterable<Cell> {
  const cells = new Map<string, Cell>();
  const add = (id: string, currency: string, week: number, sums: Partial<Sums>) => {
    const key = `${id}\u0001${currency}\u0001${week}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = { id, campaign_id: '', adset_id: '', currency, week, sums: emptySums() };
      cells.set(key, cell);
    }
    addInto(cell.sums, sums);
  };
  const each = (f: AdFacts, currency: string) => {
    if (!perWeek) return add(f.id, currency, 0, f.total);
    for (let w = 0; w < f.weeks.length; w++) {
      const sums = f.weeks[w];
      if (sums) add(f.id, currency, w, sums);
    }
  };
  for (const s of spend) each(s, s.currency);
  for (const l of leads) each(l, currencies.resolve(l.currency, 'ad', l.id, l.campaign_id));
  return cells.values();
}

/** Sums per (group, currency) and, for the weekly cells, per week. */
function byGroup(cells: Iterable<Cell>, groupOfAd: Map<string, string>): Map<string, { group: string; currency: string; sums: Sums; weeks: Map<number, Sums> }> {
  const out = new Map<string, { group: string; currency: string; sums: Sums; weeks: Map<number, Sums> }>();
  for (const cell of cells) {
    const group = groupOfAd.get(cell.id);
    if (group === undefined) continue;
    const key = `${group}\u0001${cell.currency}`;
    const entry = out.get(key) ?? { group, currency: cell.currency, sums: emptySums(), weeks: new Map() };
    addInto(entry.sums, cell.sums);
    entry.weeks.set(cell.week, addInto(entry.weeks.get(cell.week) ?? emptySums(), cell.sums));
    out.set(key, entry);
  }
  return out;
}

export async function creativeReport(db: Queryable, scope: ReportScope, params: CreativeParams, language: 'pl' | 'en'): Promise<CreativeReport> {
  const { organizationId } = scope;
  const [creativeAds, tags, ads, accounts] = await Promise.all([
    listCreativeAds(db, organizationId), listGroupTags(db, organizationId), listAds(db, organizationId), listAccounts(db, organizationId),
  ]);
  const groups = selectGroups(creativeAds, tags, params);
  const groupOfAd = new Map([...groups.values()].flatMap((g) => g.ad_ids.map((ad) => [ad, g.group_id] as [string, string])));
  const currencies = new Currencies(ads, creativeAds, accounts, scope.currency);
  const previous = previousRange(params);
  const byAd = { by: 'ad_id' as const };
  // Facts of ads outside the groups are dropped when folded into groups below, so the ad list only narrows
  // what is read; with no group filter, every ad with a creative is selected and the list filters nothing.
  const filtered = params.format !== undefined || params.tag !== undefined || params.adAccount !== undefined;
  const selected = { campaignId: params.campaign, adIds: filtered ? [...groupOfAd.keys()] : undefined };
  const everyAd = { campaignId: params.campaign };
  // The previous period only feeds the totals per currency. When every ad with spend is in a group, the
  // campaign roll-ups give its spend with one row per campaign instead of one per ad.
  const spendOfAll = !filtered && ads.every((a) => groupOfAd.has(a.ad_id));
  const weeks = weeksOf(params);
  const [[spendWeeks, spendRange], [leadsWeeks, leadsRange], spendBefore, leadsBefore] = await Promise.all([
    weeksAndRange(params, weeks, (tiles, weekColumns) => spendPerAd(db, organizationId, tiles, weekColumns, selected)),
    // Every ad's leads over the range (for the unattributed count), the selected ones' weeks.
    filtered
      ? Promise.all([leadsPerAd(db, organizationId, weekTiles(weeks), params.weeks, selected), leadsPerAd(db, organizationId, rangeTiles(params), 0, everyAd)])
      : weeksAndRange(params, weeks, (tiles, weekColumns) => leadsPerAd(db, organizationId, tiles, weekColumns, everyAd)),
    spendBy(db, organizationId, tileRange(previous.from, previous.to), spendOfAll ? { by: 'campaign_id' } : byAd, selected),
    leadsBy(db, organizationId, tileRange(previous.from, previous.to), byAd, selected),
  ]);
  const range = byGroup(cellsOf(spendRange, leadsRange, currencies, false), groupOfAd);
  const trend = byGroup(cellsOf(spendWeeks, leadsWeeks, currencies, true), groupOfAd);
  const inGroups = (c: Cell) => groupOfAd.has(c.id);
  const before = [
    ...[...fold(spendBefore, [], currencies, 'ad').cells.values()].filter((c) => spendOfAll || inGroups(c)),
    ...[...fold([], leadsBefore, currencies, 'ad').cells.values()].filter(inGroups),
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
function unattributedCreatives(leads: AdFacts[], withCreative: Set<string>, ads: Awaited<ReturnType<typeof listAds>>, account: string | undefined): number {
  const accountOf = new Map(ads.map((a) => [a.ad_id, a.account]));
  let n = 0;
  for (const l of leads) {
    if (withCreative.has(l.id)) continue;
    if (account !== undefined && accountOf.get(l.id) !== account) continue;
    n += l.total.leads ?? 0;
  }
  return n;
}
