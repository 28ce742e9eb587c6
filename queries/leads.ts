// Leads as the API reads them: one by id, and the keyset lists with form, ad, contact, stage and time filters.
// Rows carry the Lead resource as ready JSON text (leads.api_json, see projections/contacts/0004), and
// the answers apart, read only for keys that may see them.
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';

export interface LeadJsonRow {
  id: string;
  /** The Lead resource as JSON text, without answers. */
  json: string;
  /** The answers as a JSON array text; only when asked for. */
  answers?: string;
}

const columns = (withAnswers: boolean) => (withAnswers ? 'id, api_json AS json, answers_json AS answers' : 'id, api_json AS json');

export async function getLead(db: Queryable, organizationId: string, leadId: string, withAnswers: boolean): Promise<LeadJsonRow | null> {
  const { rows } = await db.query<LeadJsonRow>(`SELECT ${columns(withAnswers)} FROM leads WHERE organization_id = $1 AND id = $2`, [organizationId, leadId]);
  return rows[0] ?? null;
}

/** A bound of the submission time: a day in the organisation's zone, or an exact instant. */
export type TimeBound = { day: string } | { instant: string };

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
 * One page of leads, limit + 1 rows. `from` is inclusive; `to` is inclusive: a day bound ends where the
 * next day starts in the organisation's zone (`timezone`), an instant bound includes that instant.
 */
export async function listLeads(db: Queryable, organizationId: string, timezone: string, page: Page, filters: LeadFilters, withAnswers: boolean): Promise<LeadJsonRow[]> {
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
  if (filters.from) {
    params.push('day' in filters.from ? filters.from.day : filters.from.instant);
    const n = params.length;
    where.push('day' in filters.from ? `submitted_at >= ($${n}::date)::timestamp AT TIME ZONE $${zone()}` : `submitted_at >= $${n}::timestamptz`);
  }
  if (filters.to) {
    params.push('day' in filters.to ? filters.to.day : filters.to.instant);
    const n = params.length;
    where.push('day' in filters.to ? `submitted_at < ($${n}::date + 1)::timestamp AT TIME ZONE $${zone()}` : `submitted_at <= $${n}::timestamptz`);
  }
  const ks = keyset(page, params.length + 1);
  const { rows } = await db.query<LeadJsonRow>(
    `SELECT ${columns(withAnswers)} FROM leads WHERE ${where.join(' AND ')} AND ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
    [...params, ...ks.params],
  );
  return rows;
}
