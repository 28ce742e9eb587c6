// ad_spend: the account's daily per-ad insights for the range, appended in chunks, then the sync's
// outcome for the reports' sync state, and a creative sync for the ads it saw.
import { positionToJson, type Position } from '../../../eventstore/port.ts';
import { platformConfigFrom } from '../../../platform/graph.ts';
import { fetchDailyAdInsights, type SpendDay } from '../../../platform/insights.ts';
import { adSpendStream } from '../../../../commands/adaccount/adaccount.ts';
import { spendChunks, spendFailed, spendSucceeded, type SpendDayData, type SpendSync } from '../../../../commands/adaccount/spend.ts';
import { scopeOf } from '../../../../commands/job/kinds.ts';
import { enqueueJob } from '../enqueue.ts';
import { connectedAccount } from './ad-account.ts';
import { JobError, throwIfAborted, type JobContext, type JobHandler } from '../handler.ts';
import { dayIn, isDay, spendRange } from './days.ts';

/** The day as the event stores it: the stream and the event name the account and currency once. Fields are
 *  picked, not spread, so nothing else the platform row carries ever lands in the store. */
function toData(d: SpendDay): SpendDayData {
  const { date, campaign_id, campaign_name, adset_id, adset_name, ad_id, ad_name, spend, impressions, clicks, reach, frequency, platform_leads } = d;
  return { date, campaign_id, campaign_name, adset_id, adset_name, ad_id, ad_name, spend, impressions, clicks, reach, frequency, platform_leads };
}

async function fetchSpend(ctx: JobContext, sync: SpendSync, token: string): Promise<SpendDay[]> {
  const { services } = ctx;
  const answer = await fetchDailyAdInsights(platformConfigFrom(services.config), { account: sync.account, token, since: sync.since, until: sync.until });
  if (answer.kind === 'ok') return answer.value;
  const error = `the platform ${answer.kind === 'permanent' ? 'refused' : 'failed on'} the insights of ${sync.since}..${sync.until}: ${answer.message}`;
  await services.store.append(adSpendStream(sync.organizationId, sync.account), [spendFailed(sync, error)], 'any', ctx.metadata);
  throw new JobError(error, answer.kind === 'permanent');
}

/**
 * The largest spend of one ad on one day a sync takes. The reports hold spend in millionths in 64-bit cells (at most
 * 9.2 * 10^12 units, summed over a campaign's 56 days): a figure like 10^13 (seeded, or garbled on the way) overflowed
 * a cell and stopped the reporting_ads projector for every organisation. 10^10 is about US$600,000 a day in IDR.
 */
export const MAX_DAILY_SPEND = 1e10;

/**
 * The largest delivery count (impressions, clicks, reach, platform leads) of one ad on one day a sync takes. The
 * reports hold counts in bigint cells and sum them as float8, exact below 2^53: 10^10 a day leaves room for a
 * thousand ads over a year in one report row.
 */
export const MAX_DAILY_COUNT = 1e10;

const COUNTS = ['impressions', 'clicks', 'reach', 'platform_leads'] as const;

/** Why the reports cannot hold a day, or null. A count that is not a whole number (garbled on the way) failed its
 *  bigint cell and, like a day that is not a date of the range, stopped a projector for every organisation. */
function unholdable(d: SpendDay, sync: SpendSync, currency: string): string | null {
  const where = `ad ${d.ad_id}${isDay(d.date) ? ` on ${d.date}` : ''}`;
  if (!isDay(d.date) || d.date < sync.since || d.date > sync.until) return `a row for ${where} with the date ${JSON.stringify(d.date)}: the date must be a day of ${sync.since}..${sync.until}`;
  if (!(d.spend >= 0 && d.spend <= MAX_DAILY_SPEND)) return `a spend of ${d.spend} ${currency} for ${where}: a day's spend of an ad must be 0 to 10^10`;
  const count = COUNTS.find((c) => !(Number.isInteger(d[c]) && d[c] >= 0 && d[c] <= MAX_DAILY_COUNT));
  return count === undefined ? null : `${d[count]} ${count} for ${where}: a day's count must be a whole number from 0 to 10^10`;
}

/** A day the reports cannot hold fails the whole sync (permanently: the platform would answer the same again). */
async function refuseUnholdable(ctx: JobContext, sync: SpendSync, days: SpendDay[], currency: string): Promise<void> {
  for (const day of days) {
    const why = unholdable(day, sync, currency);
    if (why === null) continue;
    const error = `the platform gave ${why}`;
    await ctx.services.store.append(adSpendStream(sync.organizationId, sync.account), [spendFailed(sync, error)], 'any', ctx.metadata);
    throw new JobError(error, true);
  }
}

/** Chunk by chunk, with progress; returns where the last chunk landed. */
async function storeSpend(ctx: JobContext, sync: SpendSync, rows: SpendDayData[]): Promise<Position | null> {
  const stream = adSpendStream(sync.organizationId, sync.account);
  let stored = 0;
  let last: Position | null = null;
  for (const chunk of spendChunks(sync, rows)) {
    throwIfAborted(ctx.signal);
    last = (await ctx.services.store.append(stream, [chunk], 'any', ctx.metadata)).position;
    stored += chunk.type === 'AdSpendSynced' ? chunk.data.days.length : 0;
    ctx.progress(stored, `${stored} of ${rows.length} daily rows stored`);
  }
  return last;
}

/** Decimals of the currency's amounts (0 for JPY or KRW), at most the cents the platform's spend has. */
function spendDecimals(currency: string): number {
  try {
    return Math.min(2, new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2);
  } catch {
    return 2; // not a code Intl knows
  }
}

function summaryOf(sync: SpendSync, rows: SpendDayData[], currency: string): string {
  const ads = new Set(rows.map((r) => r.ad_id)).size;
  const cents = rows.reduce((sum, r) => sum + Math.round(r.spend * 100), 0);
  // In the currency's own decimals: a yen account's spend read "1234.00 JPY".
  return `${rows.length} daily rows of ${ads} ads for ${sync.since}..${sync.until}; spend ${(cents / 100).toFixed(spendDecimals(currency))} ${currency}`;
}

export const adSpendJob: JobHandler = async (ctx) => {
  const { services, organizationId } = ctx;
  const { account, connected } = await connectedAccount(ctx);
  const today = dayIn(connected.timezone, services.now());
  const range = spendRange(ctx.params, today, { windowDays: services.config.jobs.spendWindowDays, backfillDays: services.config.jobs.spendBackfillDays });
  const sync: SpendSync = { organizationId, account, currency: connected.currency, ...range, now: services.now().toISOString() };
  ctx.progress(0, `reading the platform's insights for ${range.since}..${range.until}`);
  const days = await fetchSpend(ctx, sync, connected.token);
  const currency = days.find((d) => d.currency)?.currency ?? connected.currency;
  await refuseUnholdable(ctx, sync, days, currency);
  const rows = days.map(toData);
  const last = await storeSpend(ctx, { ...sync, currency }, rows);
  await services.store.append(adSpendStream(organizationId, account), [spendSucceeded(sync, rows.length)], 'any', ctx.metadata);
  if (rows.length > 0) {
    await enqueueJob(services, {
      organizationId, kind: 'creative_sync', scope: scopeOf.account(account), trigger: 'follow_up',
      params: last ? { after: positionToJson(last) } : {},
    }, ctx.metadata);
  }
  return { summary: summaryOf(sync, rows, currency) };
};
