// One row of the creative report: a creative group's metrics, delivery, weekly trend, momentum and fatigue.
import type { CreativeGroup } from './creative-groups.ts';
import { fatigueOf, momentumOf, reasonOf, type Fatigue, type WeekPoint } from './fatigue.ts';
import { deliveryOf, emptySums, metricsOf, moneyPlaces, roundTo, type Delivery, type Metrics, type Sums } from './metrics.ts';

export interface TrendItem {
  index: number;
  spend: number;
  impressions: number;
  clicks: number;
  ctr: number | null;
  frequency: number | null;
  leads: number;
  cost_per_lead: number | null;
}

export interface CreativeRow extends Omit<CreativeGroup, 'ad_ids'> {
  ad_ids: string[];
  currency: string;
  metrics: Metrics;
  delivery: Delivery;
  trend: TrendItem[];
  momentum: number | null;
  fatigue: Fatigue & { reason: string };
}

function trendItem(index: number, s: Sums, places: number): TrendItem {
  const d = deliveryOf(s, places);
  return {
    index, spend: roundTo(s.spend, places), impressions: s.impressions, clicks: s.clicks, ctr: d.ctr, frequency: d.frequency,
    leads: s.leads, cost_per_lead: metricsOf(s, places).cost_per_lead,
  };
}

/** weekSums is keyed by weeks-from-the-end (0 = the week ending on `to`). */
export function creativeRow(
  group: CreativeGroup,
  currency: string,
  range: Sums,
  weekSums: Map<number, Sums>,
  weeks: { index: number }[],
  language: 'pl' | 'en',
): CreativeRow {
  const series = weeks.map((w) => weekSums.get(weeks.length - w.index) ?? emptySums());
  const points: WeekPoint[] = series.map((s) => ({ spend: s.spend, impressions: s.impressions, clicks: s.clicks, reach: s.reach, leads: s.leads }));
  const fatigue = fatigueOf(points);
  const places = moneyPlaces(currency);
  // Fields spelled out: an object spread followed by more fields made a slower object per row (the report's
  // JavaScript took ~8 ms more at ~1,000 rows, its garbage collection more as well).
  return {
    group_id: group.group_id, kind: group.kind, format: group.format, title: group.title, body: group.body,
    thumbnail_url: group.thumbnail_url, ad_ids: group.ad_ids, accounts: group.accounts, tags: group.tags,
    currency,
    metrics: metricsOf(range, places),
    delivery: deliveryOf(range, places),
    trend: series.map((s, i) => trendItem(weeks[i].index, s, places)),
    momentum: momentumOf(points),
    fatigue: {
      verdict: fatigue.verdict, best_week: fatigue.best_week, ctr_change: fatigue.ctr_change,
      cost_per_lead_change: fatigue.cost_per_lead_change, frequency_change: fatigue.frequency_change, reason: reasonOf(fatigue, language),
    },
  };
}
