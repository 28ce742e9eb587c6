// Leads as the API reads them: one by id, and the keyset lists with form, ad, contact, stage and time filters.
// The read model keeps the Lead resource as JSON text (leads.api_json_head, see projections/contacts/0004
// and 0005) and the answers apart (answers_json), read only for keys that may see them.
import type { Queryable } from '../src/db/pool.ts';
import type { Page } from '../src/http/pagination.ts';
import { jsonPage, type JsonPage } from './jsonPage.ts';

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

/** A bound of the submission time: a day in the organisation's zone, or an exact instant. */
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
  const zone = () => {
    params.push(timezone);
    return params.length;
  };
  if (filters.from) where.push(`submitted_at >= ${boundSql(filters.from, 'from')}`);
  if (filters.to) where.push(`submitted_at ${'day' in filters.to ? '<' : '<='} ${boundSql(filters.to, 'to')}`);
  function boundSql(bound: TimeBound, side: 'from' | 'to'): string {
    if ('instant' in bound) {
      params.push(bound.instant);
      return `$${params.length}::timestamptz`;
    }
    // A day bound "to" ends where the next day starts in the zone.
    const local = 'day' in bound ? `($${params.push(bound.day)}::date${side === 'to' ? ' + 1' : ''})::timestamp` : `$${params.push(bound.local)}::timestamp`;
    return `${local} AT TIME ZONE $${zone()}`;
  }
  // A time window is planned for its values: for a recent one (with the window's leads the last changed)
  // the list index walked in order finds the page at once, for a narrow old one the submission-time
  // index and a sort of its few hundred leads; a generic plan sorted a 30-day window's 16,000 leads
  // (310 ms instead of 0.4 ms). A walk of ten pages in list order tried first did not pay: 3,000 old
  // leads changed recently (the benchmark's own) filled the walk, and every page was read twice.
  const prepared = !filters.from && !filters.to;
  return jsonPage(db, { from: 'leads', item: leadItem(withAnswers), where, params, prepared }, page);
}
