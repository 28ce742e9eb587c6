// Leads as the API reads them: one by id, and the keyset lists with form, ad, contact, stage and time filters.
// The read model keeps the Lead resource as JSON text (leads.api_json_head, see projections/contacts/0004
// and 0005) and the answers apart (answers_json), read only for keys that may see them.
import type { Queryable } from '../src/db/pool.ts';
import type { Page } from '../src/http/pagination.ts';
import { jsonPage, type JsonPage } from './jsonPage.ts';
import { addDays } from '../projections/reporting_shared/days.ts';
import { instantOfWallClock, startOfDay } from '../projections/reporting_shared/wall-clock.ts';

/**
 * The SQL of one lead's JSON text. Answers are personal data behind their own scope: absent (not empty)
 * without leads:answers; with it they are the last field of the object (the stored head lacks its '}').
 */
const leadItem = (withAnswers: boolean) => (withAnswers ? `api_json_head || ',"answers":' || answers_json || '}'` : `api_json_head || '}'`);

/** The Lead resource as JSON text, or null. */
export async function getLeadJson(db: Queryable, organizationId: string, leadId: string, withAnswers: boolean): Promise<string | null> {
  const { rows } = await db.query<{ json: string }>({
    name: `lead_get_${withAnswers ? 'answers' : 'plain'}`,
    text: `SELECT ${leadItem(withAnswers)} AS json FROM leads WHERE organization_id = $1 AND id = $2`,
    values: [organizationId, leadId],
  });
  return rows[0]?.json ?? null;
}

/** A day or a wall-clock time (`local`) in the organisation's zone, or an instant. */
export type TimeBound = { day: string } | { local: string } | { instant: string };

export interface LeadFilters {
  form?: string;
  campaign?: string;
  adset?: string;
  ad?: string;
  contact?: string;
  stage?: string;
  from?: TimeBound;
  to?: TimeBound;
}

const COLUMN_FILTERS = { form: 'source_id', campaign: 'campaign_id', adset: 'adset_id', ad: 'ad_id', contact: 'contact_id', stage: 'stage' } as const;

/**
 * One page of leads as JSON text. `from` is inclusive; `to` is inclusive: a day bound ends where the
 * next day starts in the organisation's zone (`timezone`), an instant bound includes that instant.
 */
export async function listLeads(db: Queryable, organizationId: string, timezone: string, page: Page, filters: LeadFilters, withAnswers: boolean): Promise<JsonPage> {
  const params: unknown[] = [organizationId];
  const where = ['organization_id = $1'];
  for (const [name, column] of Object.entries(COLUMN_FILTERS) as [keyof typeof COLUMN_FILTERS, string][]) {
    if (filters[name] === undefined) continue;
    params.push(filters[name]);
    where.push(`${column} = $${params.length}`);
  }
  function boundSql(bound: TimeBound, side: 'from' | 'to'): string {
    // As Unix milliseconds: a day's start in the year 0001 east of UTC is an instant of the year 0000 (1 BC).
    params.push(boundInstant(bound, side, timezone).getTime());
    return `to_timestamp($${params.length}::float8 / 1000)`;
  }
  // A window alone (both bounds, no other filter) walks its submission buckets (projections/contacts/0007),
  // each in list order, merged: one plan whatever the window, so the statement stays prepared. Any other
  // window is planned for its values: for a recent one (with the window's leads the last changed) the list
  // index walked in order finds the page at once, for a narrow old one the submission-time index and a sort
  // of its few hundred leads; a generic plan sorted a 30-day window's 16,000 leads (310 ms instead of 0.4 ms).
  const buckets = params.length === 1 && filters.from && filters.to ? windowBuckets(filters.from, filters.to) : null;
  // In the bucket walk the bounds and the buckets are subqueries (each run once, before the walk), so that no
  // plan, custom or generic, is costed for their values: a custom plan then costs what the generic one does
  // plus its planning, and after five executions PostgreSQL keeps the generic plan, the bucket walk. With the
  // values in sight each custom plan came out cheaper than the generic estimate (which takes a range of
  // unknown bounds to hold 0.5% of a bucket), so the statement was planned on every request.
  const bound = (bound: TimeBound, side: 'from' | 'to') => (buckets ? `(SELECT ${boundSql(bound, side)})` : boundSql(bound, side));
  if (filters.from) where.push(`submitted_at >= ${bound(filters.from, 'from')}`);
  if (filters.to) where.push(`submitted_at ${'day' in filters.to ? '<' : '<='} ${bound(filters.to, 'to')}`);
  const parts = buckets?.map((bucket) => `submitted_bucket = (SELECT $${params.push(bucket)}::integer)`);
  const prepared = (!filters.from && !filters.to) || parts !== undefined;
  return jsonPage(db, { from: 'leads', item: leadItem(withAnswers), where, params, prepared, parts }, page);
}

/**
 * The instant a bound stands for: a day "from" starts with its first instant in the zone, a day "to" ends
 * where the next day starts; a wall-clock time is read in the zone. The zone data is the reports' own
 * (wall-clock.ts), so a day of the list holds exactly the leads the reports count on that day.
 */
function boundInstant(bound: TimeBound, side: 'from' | 'to', timezone: string): Date {
  if ('instant' in bound) return new Date(bound.instant);
  if ('local' in bound) return instantOfWallClock(timezone, bound.local);
  return startOfDay(timezone, side === 'to' ? addDays(bound.day, 1) : bound.day);
}

/** Length of a submission bucket (leads.submitted_bucket): 30 days, counted from the Unix epoch. */
const BUCKET_MS = 2_592_000_000;
/** A window over more buckets than this (about a year) is planned for its values instead. */
const MAX_BUCKETS = 12;
/** Zones are at most 14 hours from UTC: a day or wall-clock bound is within a day of the same text read in UTC. */
const DAY_MS = 86_400_000;

/**
 * The buckets a window may touch, or null when there are too many (or the bounds are unreadable): the
 * bounds widened by a day, so that the organisation's zone need not be known here. A bucket the window
 * misses costs one index descent; the exact bounds are conditions of the query.
 */
export function windowBuckets(from: TimeBound, to: TimeBound): number[] | null {
  const instant = (bound: TimeBound, side: 'from' | 'to') => {
    if ('instant' in bound) return Date.parse(bound.instant);
    const utc = Date.parse('day' in bound ? `${bound.day}T00:00:00Z` : `${bound.local}Z`);
    // A day bound "to" ends with its day, in the zone.
    return side === 'from' ? utc - DAY_MS : utc + DAY_MS + ('day' in bound ? DAY_MS : 0);
  };
  const first = Math.floor(instant(from, 'from') / BUCKET_MS);
  const last = Math.floor(instant(to, 'to') / BUCKET_MS);
  if (!Number.isFinite(first) || !Number.isFinite(last) || last < first || last - first >= MAX_BUCKETS) return null;
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
