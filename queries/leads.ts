// Leads as the API reads them: one by id, and the keyset lists with form, ad, contact, stage and time filters.
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';
import type { AdSource, LeadAnswer } from '../commands/lead/lead.ts';

export interface LeadRow {
  id: string;
  platform_lead_id: string;
  source_id: string | null;
  form_name: string;
  platform_form_id: string;
  platform_page_id: string;
  contact_id: string | null;
  stage: string;
  cycle: number;
  fetch_status: string;
  fetch_error: string | null;
  ad: AdSource | null;
  answers: LeadAnswer[];
  stages: { stage: string; at: string; platform_event_queued: boolean }[];
  submitted_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, contact_id, stage, cycle,
  fetch_status, fetch_error, ad, answers, stages, submitted_at, updated_at`;

export async function getLead(db: Queryable, organizationId: string, leadId: string): Promise<LeadRow | null> {
  const { rows } = await db.query<LeadRow>(`SELECT ${COLUMNS} FROM leads WHERE organization_id = $1 AND id = $2`, [organizationId, leadId]);
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
export async function listLeads(db: Queryable, organizationId: string, timezone: string, page: Page, filters: LeadFilters): Promise<LeadRow[]> {
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
  const { rows } = await db.query<LeadRow>(
    `SELECT ${COLUMNS} FROM leads WHERE ${where.join(' AND ')} AND ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${ks.limit}`,
    [...params, ...ks.params],
  );
  return rows;
}
