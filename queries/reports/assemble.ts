// Folding fact groups into report cells: one per (row id, currency), organic apart, totals per currency.
import type { Currencies, Level } from './catalog.ts';
import type { LeadGroup, SpendGroup } from './facts.ts';
import { addInto, changesOf, emptySums, metricsOf, moneyPlaces, roundTo, type Metrics, type Sums } from './metrics.ts';

export interface Cell {
  id: string;
  campaign_id: string;
  adset_id: string;
  currency: string;
  sums: Sums;
}

export interface Folded {
  /** Paid cells by `${id} ${currency}`; id '' holds leads with no id at the level. */
  cells: Map<string, Cell>;
  /** Organic leads by currency (their revenue in the sale's currency, the rest in the organisation's). */
  organic: Map<string, Sums>;
}

function cellFor(folded: Folded, id: string, campaignId: string, adsetId: string, currency: string): Cell {
  const key = `${id}\u0001${currency}`;
  let cell = folded.cells.get(key);
  if (!cell) {
    cell = { id, campaign_id: campaignId, adset_id: adsetId, currency, sums: emptySums() };
    folded.cells.set(key, cell);
  }
  return cell;
}

/** `idLevel` names what the group id is (for the currency of leads stored without one). */
export function fold(spend: SpendGroup[], leads: LeadGroup[], currencies: Currencies, idLevel: Level): Folded {
  const folded: Folded = { cells: new Map(), organic: new Map() };
  for (const s of spend) addInto(cellFor(folded, s.id, s.campaign_id, s.adset_id, s.currency).sums, s);
  for (const l of leads) {
    const currency = currencies.resolve(l.currency, idLevel, l.id, l.campaign_id);
    if (l.organic) {
      const sums = folded.organic.get(currency) ?? emptySums();
      folded.organic.set(currency, addInto(sums, l));
    } else {
      addInto(cellFor(folded, l.id, l.campaign_id, l.adset_id, currency).sums, l);
    }
  }
  return folded;
}

/** Paid sums per currency over every cell (including leads with no id at the level). */
export function byCurrency(cells: Iterable<Cell>): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const c of cells) out.set(c.currency, addInto(out.get(c.currency) ?? emptySums(), c.sums));
  return out;
}

export interface TotalItem {
  currency: string;
  current: Metrics;
  previous: Metrics;
  change: ReturnType<typeof changesOf>;
}

export function totals(current: Map<string, Sums>, previous: Map<string, Sums>): TotalItem[] {
  const currencies = [...new Set([...current.keys(), ...previous.keys()])].sort();
  return currencies.map((currency) => {
    const now = current.get(currency) ?? emptySums();
    const before = previous.get(currency) ?? emptySums();
    const places = moneyPlaces(currency);
    return { currency, current: metricsOf(now, places), previous: metricsOf(before, places), change: changesOf(now, before) };
  });
}

export interface OrganicSummary {
  leads: number;
  qualified: number;
  rejected: number;
  sales: number;
  revenue: { currency: string; amount: number }[];
}

export function organicSummary(organic: Map<string, Sums>): OrganicSummary {
  const all = [...organic.values()].reduce((a, s) => addInto(a, s), emptySums());
  const revenue = [...organic].filter(([, s]) => s.revenue !== 0).map(([currency, s]) => ({ currency, amount: roundTo(s.revenue, moneyPlaces(currency)) }));
  return { leads: all.leads, qualified: all.qualified, rejected: all.rejected, sales: all.sales, revenue: revenue.sort((a, b) => a.currency.localeCompare(b.currency)) };
}

/** Leads with an ad source but no id at the level. */
export function unattributedLeads(cells: Iterable<Cell>): number {
  let n = 0;
  for (const c of cells) if (c.id === '') n += c.sums.leads;
  return n;
}
