// Report metrics from summed facts: counts, money and the cost ratios (null when the divisor is 0).
export interface Sums {
  spend: number;
  platform_leads: number;
  impressions: number;
  clicks: number;
  reach: number;
  leads: number;
  qualified: number;
  rejected: number;
  sales: number;
  revenue: number;
}

export interface Metrics {
  spend: number;
  platform_leads: number;
  leads: number;
  qualified: number;
  rejected: number;
  sales: number;
  revenue: number;
  cost_per_lead: number | null;
  cost_per_qualified: number | null;
  cost_per_sale: number | null;
  revenue_per_spend: number | null;
}

export interface Delivery {
  impressions: number;
  clicks: number;
  ctr: number | null;
  frequency: number | null;
  cpm: number | null;
  cpc: number | null;
}

export const emptySums = (): Sums => ({ spend: 0, platform_leads: 0, impressions: 0, clicks: 0, reach: 0, leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0 });

/** Adds b into a and returns a (spelled out: a loop over the field names cost more than the adding in the reports' profiles). */
export function addInto(a: Sums, b: Partial<Sums>): Sums {
  a.spend += b.spend ?? 0;
  a.platform_leads += b.platform_leads ?? 0;
  a.impressions += b.impressions ?? 0;
  a.clicks += b.clicks ?? 0;
  a.reach += b.reach ?? 0;
  a.leads += b.leads ?? 0;
  a.qualified += b.qualified ?? 0;
  a.rejected += b.rejected ?? 0;
  a.sales += b.sales ?? 0;
  a.revenue += b.revenue ?? 0;
  return a;
}

/**
 * Half up at `places` decimals (half away from zero below 0). The shifted value is nudged up by a few units in the last
 * place (2^-50 relative, ~4 ulps): 1.005 * 100 is 100.49999999999999 in floating point, which Math.round alone takes
 * down (20.15 / 2 leads showed 10.07 a lead, not 10.08). The nudge must stay that small: a relative 1e-12 added a whole
 * cent from 5e9 up (a spend of 10,000,000,000 IDR showed 10000000000.01). A multiplication, not a decimal string: this
 * runs ~10 times per report row.
 */
const NUDGE = 1 + 2 ** -50;
export const roundTo = (x: number, places: number) => Math.round(x * 10 ** places * NUDGE) / 10 ** places;
const placesByCurrency = new Map<string, number>();

/**
 * The decimals money of a currency is shown with: its ISO 4217 minor unit, but never fewer than cents. A KWD or
 * BHD amount has three (a sale of 12.345 KWD showed 12.35), CLF four; JPY keeps two, which hides nothing.
 */
export function moneyPlaces(currency: string): number {
  let places = placesByCurrency.get(currency);
  if (places === undefined) {
    try {
      places = Math.max(2, new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2);
    } catch {
      places = 2; // not a currency code Intl knows
    }
    placesByCurrency.set(currency, places);
  }
  return places;
}

/** num / den unrounded; null when there is no divisor. */
const per = (num: number, den: number): number | null => (den === 0 ? null : num / den);
/** num / den as shown, at `places` decimals. */
const ratio = (num: number, den: number, places: number): number | null => (den === 0 ? null : roundTo(num / den, places));

/** `places`: the decimals of the row's currency (moneyPlaces) for its money and costs. */
export function metricsOf(s: Sums, places: number): Metrics {
  return {
    spend: roundTo(s.spend, places),
    platform_leads: s.platform_leads,
    leads: s.leads,
    qualified: s.qualified,
    rejected: s.rejected,
    sales: s.sales,
    revenue: roundTo(s.revenue, places),
    cost_per_lead: ratio(s.spend, s.leads, places),
    cost_per_qualified: ratio(s.spend, s.qualified, places),
    cost_per_sale: ratio(s.spend, s.sales, places),
    revenue_per_spend: ratio(s.revenue, s.spend, 4),
  };
}

export function deliveryOf(s: Sums, places: number): Delivery {
  return {
    impressions: s.impressions,
    clicks: s.clicks,
    ctr: ratio(s.clicks, s.impressions, 6),
    frequency: ratio(s.impressions, s.reach, 3),
    cpm: ratio(s.spend * 1000, s.impressions, places),
    cpc: ratio(s.spend, s.clicks, places),
  };
}

/** Signed relative change from previous to current (0.25 = +25%); null when there is no base. */
export function changeOf(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return roundTo(current / previous - 1, 4);
}

/**
 * The changes of two periods' sums, not of their rounded metrics: a cost per lead shown in cents would move the
 * ratio (6.46 against 7.00 is -0.0771; 38.75 / 6 against 7 / 1 is -0.0774), and by half when the costs are cents.
 */
export function changesOf(current: Sums, previous: Sums) {
  return {
    spend: changeOf(current.spend, previous.spend),
    leads: changeOf(current.leads, previous.leads),
    qualified: changeOf(current.qualified, previous.qualified),
    sales: changeOf(current.sales, previous.sales),
    revenue: changeOf(current.revenue, previous.revenue),
    cost_per_lead: changeOf(per(current.spend, current.leads), per(previous.spend, previous.leads)),
    cost_per_sale: changeOf(per(current.spend, current.sales), per(previous.spend, previous.sales)),
  };
}
