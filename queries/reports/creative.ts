// The creative report: per creative group, the campaign metrics plus delivery, a weekly trend, momentum
// and a fatigue verdict, with totals per currency against the previous period.
import type { Queryable } from '../../src/db/pool.ts';
import { addDays, tileRange, type Bucket } from '../../projections/reporting_shared/days.ts';
import { Currencies, listAccounts, listAds, listCreativeAds, listGroupTags, syncItems, type SyncItem } from './catalog.ts';
import { leadsBy, spendBy } from './facts.ts';
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
const weekTiles = (weeks: Week[]): Bucket[] => weeks.flatMap((w) => tileRange(w.from, w.to));

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
  const weekly = { by: 'ad_id' as const, weeksEndingAt: params.to };
  const selected = { campaignId: params.campaign, adIds: [...groupOfAd.keys()] };
  const everyAd = { campaignId: params.campaign };
  const weeks = weeksOf(params);
  const [spendWeeks, leadsWeeks, spendRange, leadsRange, spendBefore, leadsBefore] = await Promise.all([
    spendBy(db, organizationId, weekTiles(weeks), weekly, selected),
    leadsBy(db, organizationId, weekTiles(weeks), weekly, selected),
    spendBy(db, organizationId, tileRange(params.from, params.to), byAd, selected),
    leadsBy(db, organizationId, tileRange(params.from, params.to), byAd, everyAd),
    spendBy(db, organizationId, tileRange(previous.from, previous.to), byAd, selected),
    leadsBy(db, organizationId, tileRange(previous.from, previous.to), byAd, selected),
  ]);
  const range = byGroup(fold(spendRange, leadsRange, currencies, 'ad').cells.values(), groupOfAd);
  const trend = byGroup(fold(spendWeeks, leadsWeeks, currencies, 'ad').cells.values(), groupOfAd);
  const before = fold(spendBefore, leadsBefore, currencies, 'ad');
  const rows: CreativeRow[] = [];
  for (const key of new Set([...range.keys(), ...trend.keys()])) {
    const current = range.get(key) ?? trend.get(key)!;
    rows.push(creativeRow(groups.get(current.group) as CreativeGroup, current.currency, range.get(key)?.sums ?? emptySums(), trend.get(key)?.weeks ?? new Map(), weeks, language));
  }
  rows.sort((a, b) => b.metrics.spend - a.metrics.spend || b.metrics.leads - a.metrics.leads || a.group_id.localeCompare(b.group_id));
  return {
    from: params.from, to: params.to, timezone: scope.timezone, as_of: scope.asOf.toISOString(), previous,
    maturing: isMaturing(params, scope.today), weeks, rows,
    totals: totals(sumsByCurrency(range.values()), byCurrency([...before.cells.values()].filter((c) => groupOfAd.has(c.id)))),
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
function unattributedCreatives(leads: Awaited<ReturnType<typeof leadsBy>>, withCreative: Set<string>, ads: Awaited<ReturnType<typeof listAds>>, account: string | undefined): number {
  const accountOf = new Map(ads.map((a) => [a.ad_id, a.account]));
  let n = 0;
  for (const l of leads) {
    if (l.organic || withCreative.has(l.id)) continue;
    if (account !== undefined && accountOf.get(l.id) !== account) continue;
    n += l.leads;
  }
  return n;
}
