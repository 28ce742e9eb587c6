// Response schemas of the report endpoints: every field named and described for the OpenAPI document.
import { z } from 'zod';
import { FATIGUE_RULE } from './fatigue.ts';

const money = (what: string) => z.number().describe(what);
const ratio = (what: string) => z.number().nullable().describe(`${what} Null when the divisor is 0.`);
const day = (what: string) => z.string().describe(`${what} (YYYY-MM-DD, organisation time zone)`);

export const Metrics = z.object({
  spend: money('Spend of the range\'s days, in the row\'s currency (the ad account\'s).'),
  platform_leads: z.number().int().describe('Leads the platform counted for the range\'s days (its own attribution).'),
  leads: z.number().int().describe('Cohort: leads submitted in the range (days in the organisation\'s zone).'),
  qualified: z.number().int().describe('Leads of the cohort whose stage history includes qualified or sold, up to now.'),
  rejected: z.number().int().describe('Leads of the cohort now rejected.'),
  sales: z.number().int().describe('Leads of the cohort now sold.'),
  revenue: money('Sale values of the cohort\'s sold leads (each sale counted once, on one lead), in the row\'s currency.'),
  cost_per_lead: ratio('spend / leads.'),
  cost_per_qualified: ratio('spend / qualified.'),
  cost_per_sale: ratio('spend / sales.'),
  revenue_per_spend: ratio('revenue / spend (ROAS).'),
}).meta({ id: 'ReportMetrics', description: 'Metrics of a row or a total. Cohort rule: the leads submitted in the range, with the stages and sales they reached up to now (or up to the as-of moment); spend and platform_leads are those of the range\'s days. Money and costs are rounded half up to the currency\'s ISO 4217 minor unit, at least 2 decimals (3 for KWD or BHD); revenue_per_spend to 4 decimals.' });

const Change = z.object({
  spend: z.number().nullable(),
  leads: z.number().nullable(),
  qualified: z.number().nullable(),
  sales: z.number().nullable(),
  revenue: z.number().nullable(),
  cost_per_lead: z.number().nullable(),
  cost_per_sale: z.number().nullable(),
}).meta({ id: 'ReportChange', description: 'Signed relative change of the current period against the previous one (0.25 = +25%, -0.1 = -10%), from the unrounded figures; null when the previous value is 0 or null.' });

export const Total = z.object({
  currency: z.string().describe('ISO 4217 currency of every money figure of this item.'),
  current: Metrics.describe('The requested range.'),
  previous: Metrics.describe('The period of the same length just before the range (see `previous`).'),
  change: Change,
}).meta({ id: 'ReportTotal', description: 'Totals of one currency: every spend day and every lead with an ad source in the filtered scope (including leads without an id at the level; organic leads are apart).' });

export const Sync = z.object({
  account: z.string().describe('Ad account id (act_...).'),
  name: z.string().describe('Account name; empty when unknown.'),
  currency: z.string().describe('Account currency: the currency of its spend.'),
  state: z.enum(['ok', 'failing', 'never_synced']).describe('ok: the last sync succeeded; failing: the last attempt failed after (or without) a success; never_synced: no sync yet.'),
  last_success_at: z.iso.datetime().nullable().describe('Last successful spend sync (date-time).'),
  last_failure_at: z.iso.datetime().nullable().describe('Last failed spend sync (date-time).'),
  last_error: z.string().describe('Error of the last failed sync while failing; empty otherwise.'),
  synced_from: z.string().nullable().describe('First day any successful sync covered (the days between synced_from and synced_to were not all synced: see synced_ranges).'),
  synced_to: z.string().nullable().describe('Last day any successful sync covered.'),
  synced_ranges: z.array(z.object({ from: z.string(), to: z.string() })).describe('The days successful syncs actually covered, as inclusive ranges of days (YYYY-MM-DD), oldest first; a sync that returned no row still covers its window (no spend there).'),
  covers_range: z.boolean().describe('True when the synced days (synced_ranges) include every day of the report\'s range: spend is complete.'),
}).meta({ id: 'ReportSync', description: 'Spend sync state of one ad account.' });

export const Previous = z.object({ from: day('First day of the previous period'), to: day('Last day of the previous period') })
  .meta({ id: 'ReportPreviousPeriod', description: 'The period of the same length just before the range, used by totals[].previous.' });

export const CampaignRow = z.object({
  id: z.string().describe('Platform id of the row (campaign, ad set or ad id by level).'),
  name: z.string().describe('Name of the row as the platform last gave it (spend sync first, else lead ad data).'),
  campaign_id: z.string(),
  campaign_name: z.string(),
  adset_id: z.string().nullable().describe('Null at campaign level.'),
  adset_name: z.string().nullable().describe('Null at campaign level.'),
  ad_id: z.string().nullable().describe('Set at ad level only.'),
  ad_name: z.string().nullable().describe('Set at ad level only.'),
  currency: z.string().describe('Currency of the row\'s money (one row per id and currency).'),
  metrics: Metrics,
}).meta({ id: 'CampaignReportRow', description: 'One campaign, ad set or ad. Rows are sorted by spend, then leads (both descending).' });

export const Organic = z.object({
  leads: z.number().int().describe('Leads of the range without a known ad (organic, or not fetched yet).'),
  qualified: z.number().int(),
  rejected: z.number().int(),
  sales: z.number().int(),
  revenue: z.array(z.object({ currency: z.string(), amount: z.number() })).describe('Sale values per currency.'),
}).meta({ id: 'ReportOrganic', description: 'The cohort of leads without a known ad; not part of totals.' });

export const CampaignReport = z.object({
  from: day('First day'),
  to: day('Last day'),
  level: z.enum(['campaign', 'adset', 'ad']),
  timezone: z.string().describe('The organisation\'s time zone that days are counted in.'),
  as_of: z.iso.datetime().describe('The moment the report reflects (date-time): now, or the operator\'s --as-of.'),
  previous: Previous,
  maturing: z.boolean().describe('True when `to` is within the last 30 days: leads of the range may still qualify and sell.'),
  totals: z.array(Total).describe('Per currency, sorted by currency.'),
  rows: z.array(CampaignRow),
  organic: Organic,
  syncs: z.array(Sync),
  unattributed: z.number().int().describe('Leads of the range with an ad source but no id at this level (counted in totals, not in rows).'),
}).meta({ id: 'CampaignReport', description: 'Spend and the lead cohort per campaign, ad set or ad.' });

const pct = (share: number) => `${Math.round(share * 100)}%`;
const R = FATIGUE_RULE;

const Fatigue = z.object({
  verdict: z.enum(['fresh', 'stable', 'fatiguing', 'fatigued', 'insufficient_data']),
  best_week: z.number().int().nullable().describe(`Index (weeks[].index) of the best week: the earlier active week with the highest CTR, the first on a tie. Null when the last week is not active or fewer than ${R.minActiveWeeks} weeks are.`),
  ctr_change: z.number().nullable().describe('Last week\'s CTR against the best week\'s (signed ratio, 3 decimals); null without a best week or when the best week had no click.'),
  cost_per_lead_change: z.number().nullable().describe('Last week\'s cost per lead against the earlier active weeks pooled, their spend / their leads (signed ratio, 3 decimals); null when those weeks had no lead or no spend, when the last week had neither spend nor a lead, and when it had spend but no lead (a rise for the verdict), and without a best week.'),
  frequency_change: z.number().nullable().describe('Last week\'s frequency against the best week\'s (signed ratio, 3 decimals); null when either week has no reach, and without a best week.'),
  reason: z.string().describe('The verdict in words, in the caller\'s language.'),
}).meta({
  id: 'CreativeFatigue',
  // Every number from FATIGUE_RULE, every step as fatigueOf takes it (docs/reports.md has the same table).
  description: `Fatigue rule. An active week has at least ${R.minWeekImpressions} impressions. insufficient_data: the last week is not active or fewer than ${R.minActiveWeeks} weeks are. `
    + `Otherwise the last week is compared with the best week, the earlier active week with the highest CTR: `
    + `the CTR signal is last week's CTR at least ${pct(R.ctrDrop)} below the best week's; `
    + `the frequency signal is last week's frequency at least ${pct(R.frequencyRise)} above the best week's; `
    + `the cost signal is last week's cost per lead at least ${pct(R.costPerLeadRise)} above that of the earlier active weeks pooled (a last week with spend and no lead counts as a rise; no cost signal when those weeks had no lead or no spend). `
    + `When no active week brought a lead, cost per lead cannot be compared: fatiguing when the CTR and frequency signals both hold, else insufficient_data (never fresh, stable or fatigued; best_week, ctr_change and frequency_change are still given). `
    + `Else: fatigued when CTR fell at least ${pct(R.ctrDropFatigued)} AND the cost signal AND the frequency signal hold; fatiguing when the CTR signal and the cost or the frequency signal hold; `
    + `fresh when last week's CTR is at least ${pct(R.freshCtrShare)} of the best week's (or the best week had no click) and there is no cost signal; stable otherwise.`,
});

const Delivery = z.object({
  impressions: z.number().int(),
  clicks: z.number().int(),
  ctr: z.number().nullable().describe('clicks / impressions; null without impressions.'),
  frequency: z.number().nullable().describe('impressions / the sum of daily reach: the average daily frequency (reach is not additive across days).'),
  cpm: z.number().nullable().describe('spend per 1000 impressions.'),
  cpc: z.number().nullable().describe('spend / clicks.'),
}).meta({ id: 'CreativeDelivery', description: 'Delivery metrics of the range.' });

const Trend = z.object({
  index: z.number().int().describe('Week index (weeks[].index).'),
  spend: z.number(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  ctr: z.number().nullable(),
  frequency: z.number().nullable(),
  leads: z.number().int().describe('Leads submitted that week.'),
  cost_per_lead: z.number().nullable(),
}).meta({ id: 'CreativeTrendWeek' });

export const CreativeRow = z.object({
  group_id: z.string().describe('video:<video_id>, else image:<image_hash>, else creative:<creative_id>.'),
  kind: z.enum(['video', 'image', 'creative']),
  format: z.string().describe('Format of the group\'s most recently synced ad.'),
  title: z.string(),
  body: z.string(),
  thumbnail_url: z.string(),
  ad_ids: z.array(z.string()).describe('Ads showing this creative (within the ad_account filter).'),
  accounts: z.array(z.string()),
  tags: z.array(z.string()).describe('Operator tags: hook:..., creator:..., offer:...'),
  currency: z.string(),
  metrics: Metrics,
  delivery: Delivery,
  trend: z.array(Trend).describe('One item per week of `weeks`, oldest first.'),
  momentum: z.number().nullable().describe('Last week\'s leads against the mean leads of the earlier trend weeks, counted from the group\'s first week with impressions or leads: last / mean(earlier) - 1, 3 decimals (+0.5 = half as many again, -1 = none). Null when there is no earlier week or the earlier weeks brought no lead.'),
  fatigue: Fatigue,
}).meta({ id: 'CreativeReportRow', description: 'One creative group in one currency.' });

export const CreativeReport = z.object({
  from: day('First day of the metrics'),
  to: day('Last day; the last week ends on it'),
  timezone: z.string(),
  as_of: z.iso.datetime().describe('The moment the report reflects (date-time).'),
  previous: Previous,
  maturing: z.boolean().describe('True when `to` is within the last 30 days.'),
  weeks: z.array(z.object({ index: z.number().int().describe('1 = oldest'), from: day('First day'), to: day('Last day') }).meta({ id: 'CreativeReportWeek' })).describe('Full 7-day weeks ending on `to`, oldest first.'),
  rows: z.array(CreativeRow),
  totals: z.array(Total).describe('Per currency over the rows shown, with the same groups\' previous period.'),
  syncs: z.array(Sync),
  unattributed: z.number().int().describe('Leads of the range with an ad source but no known creative (no ad id, or the ad\'s creative not synced).'),
}).meta({ id: 'CreativeReport', description: 'Creative groups with metrics, weekly trend, momentum and fatigue verdict.' });
