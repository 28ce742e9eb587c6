// Report parameters: the query-string schemas (shared by the HTTP routes and the CLI) and their
// resolution against "today" in the organisation's zone, with the rules zod alone cannot state.
import { z } from 'zod';
import { validationError } from '../../commands/shared/errors.ts';
import { parseTag, type TagChange } from '../../commands/creativegroup/decide.ts';
import { addDays, isDay, spanDays } from '../../projections/reporting_shared/days.ts';
import type { Level } from './catalog.ts';
import { decimalInteger } from '../../src/http/pagination.ts';

export const MAX_RANGE_DAYS = 366;
/** Default `from` of the campaign report: this many days before `to` ("default 30 days ago"). */
export const DEFAULT_DAYS_BACK = 30;
/** Trend weeks of the creative report when `weeks` is not given. */
export const DEFAULT_WEEKS = 4;
/** A range whose last day is within this many days of today may still gain sales. */
export const MATURING_DAYS = 30;

/** The earliest day a report covers: its previous period and trend weeks reach up to a year before `from`, and
 * no ad platform's numbers predate it. */
export const EARLIEST_REPORT_DAY = '1970-01-01';
/** The last day a report covers: the 7- and 56-day buckets it reads reach weeks past `to`, and a day past 9999-12-31
 * (written +010000-01-01) is one PostgreSQL refuses, a 500. */
export const LATEST_REPORT_DAY = '9998-12-31';

// format date in the OpenAPI document: the spec's YYYY-MM-DD, as the leads' from and to already show it. It also
// refuses days no calendar has (2024-02-30); the bound below then adds no second message.
const day = (what: string) => z.iso.date()
  .refine((d) => !isDay(d) || (d >= EARLIEST_REPORT_DAY && d <= LATEST_REPORT_DAY), `a day from ${EARLIEST_REPORT_DAY} to ${LATEST_REPORT_DAY}`)
  .describe(what);
const id = (what: string) => z.string().min(1).max(100).describe(what);

const WEEKS = 'an integer from 4 to 8';
/** An ad account as connected accounts are held (ACCOUNT_ID, act_<digits>), or its digits alone. */
const AD_ACCOUNT = /^(?:act_)?\d{1,30}$/;

export const CampaignReportQuery = z.object({
  from: day('First day, YYYY-MM-DD in the organisation\'s time zone (default: 30 days before `to`, i.e. 30 days ago when `to` is not given; the range then spans 31 days).').optional(),
  to: day('Last day, YYYY-MM-DD in the organisation\'s time zone (default: today, or `from` when that is later). Not before `from`; the range, both days included, is at most 366 days.').optional(),
  // A default, not optional: the document then shows it (`default`) as it shows limit's.
  level: z.enum(['campaign', 'adset', 'ad']).default('campaign').describe('Row level (default campaign).'),
  campaign: id('Platform campaign id; narrows the adset and ad levels (a validation_error at campaign level).').optional(),
  adset: id('Platform ad set id; narrows the ad level (a validation_error at other levels).').optional(),
}).strict();

export const CreativeReportQuery = z.object({
  from: day('First day of the metrics, YYYY-MM-DD in the organisation\'s time zone (default: the first day of the first week, 7 × `weeks` - 1 days before `to`, so the metrics cover the trend\'s weeks). The range, both days included, is at most 366 days.').optional(),
  to: day('Last day, YYYY-MM-DD in the organisation\'s time zone (default: today, or `from` when that is later); the last week ends on it.').optional(),
  format: z.string().min(1).max(50).describe('Creative format, e.g. video, image, carousel.').optional(),
  campaign: id('Platform campaign id: only spend and leads of this campaign.').optional(),
  // The platform's ad account id is the number; its Graph node (and the CLI's --account) is act_ + number. Any
  // other text names no account the service can hold (connect refuses it), so it is a bad value, not an empty report.
  ad_account: z.string().regex(AD_ACCOUNT, 'an ad account id: act_<number> or the number alone')
    .describe('Ad account id, act_<number> or the number alone: only ads of this account.')
    .transform((a) => (a.startsWith('act_') ? a : `act_${a}`)).optional(),
  tag: z.string().min(3).max(60).describe('dimension:value with dimension hook, creator or offer.').optional(),
  // An integer as the spec types it (and the OpenAPI document then shows), written in decimal digits as `limit` is.
  weeks: z.preprocess(decimalInteger,
    z.number({ error: WEEKS }).int({ error: WEEKS, abort: true }).min(4, WEEKS).max(8, WEEKS).default(DEFAULT_WEEKS))
    .describe(`Weeks of the trend, 4-8 (default ${DEFAULT_WEEKS}), each 7 days, the last ending on \`to\`.`),
}).strict();

export interface Range {
  from: string;
  to: string;
}

export interface CampaignParams extends Range {
  level: Level;
  campaign?: string;
  adset?: string;
}

export interface CreativeParams extends Range {
  weeks: number;
  /** First day of the first week. */
  weeksFrom: string;
  format?: string;
  campaign?: string;
  adAccount?: string;
  tag?: TagChange;
}

/**
 * to not before from, at most 366 days. A range too long is blamed on `to` when the caller sent it, else on `from`:
 * `?from=2025-01-01` alone named a `to` the caller never sent.
 */
function checkRange(range: Range, toGiven: boolean): Range {
  if (range.to < range.from) throw validationError('to', 'must not be before from');
  if (spanDays(range.from, range.to) > MAX_RANGE_DAYS) {
    throw toGiven
      ? validationError('to', `the range is at most ${MAX_RANGE_DAYS} days`)
      : validationError('from', `the range is at most ${MAX_RANGE_DAYS} days (to, not given, is today)`);
  }
  return range;
}

/** `to` when not given: today, or `from` when that is later (a range of one future day, not a `to` the caller never sent at fault). */
const defaultTo = (query: { from?: string; to?: string }, today: string): string =>
  query.to ?? (query.from && query.from > today ? query.from : today);

export function resolveCampaignParams(query: z.infer<typeof CampaignReportQuery>, today: string): CampaignParams {
  const to = defaultTo(query, today);
  const range = checkRange({ from: query.from ?? addDays(to, -DEFAULT_DAYS_BACK), to }, query.to !== undefined);
  const level = query.level;
  if (query.campaign !== undefined && level === 'campaign') throw validationError('campaign', 'applies to the adset and ad levels');
  if (query.adset !== undefined && level !== 'ad') throw validationError('adset', 'applies to the ad level');
  return { ...range, level, campaign: query.campaign, adset: query.adset };
}

export function resolveCreativeParams(query: z.infer<typeof CreativeReportQuery>, today: string): CreativeParams {
  const weeks = query.weeks;
  const to = defaultTo(query, today);
  const weeksFrom = addDays(to, -(7 * weeks - 1));
  const range = checkRange({ from: query.from ?? weeksFrom, to }, query.to !== undefined);
  const tag = query.tag === undefined ? undefined : parseTag(query.tag, 'tag');
  if (tag && !tag.value) throw validationError('tag', 'name a value: dimension:value');
  return {
    ...range, weeks, weeksFrom, format: query.format, campaign: query.campaign, adAccount: query.ad_account,
    tag,
  };
}

/** The period of the same length just before the range. */
export function previousRange(range: Range): Range {
  const length = spanDays(range.from, range.to);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

export function isMaturing(range: Range, today: string): boolean {
  return range.to >= addDays(today, -(MATURING_DAYS - 1));
}
