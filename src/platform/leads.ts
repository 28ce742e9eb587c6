// Reading leads and lead forms from the platform: one lead by id, a form's leads page by page, a page's forms.
import { graphGet, type PlatformConfig, type PlatformResult } from './graph.ts';
import { leadFromGraph, LeadExportError, type GraphLeadObject, type PlatformLead } from './lead-export.ts';

// The export parsing lives beside the Graph mapping it shares; these are the names other modules import from here.
export { leadFromGraph, parseLeadExport, decodeExportFile, LeadExportError } from './lead-export.ts';
export type { AdSource, GraphLeadObject, LeadAnswer, PlatformLead } from './lead-export.ts';

const LEAD_FIELDS = 'id,created_time,ad_id,ad_name,adset_id,adset_name,campaign_id,campaign_name,form_id,platform,field_data,is_organic';

export interface LeadForm {
  id: string;
  name: string;
  status: string;
}

export interface LeadsPage {
  leads: PlatformLead[];
  /** Cursor of the next page; null on the last page. */
  after: string | null;
}

interface GraphPage<T> {
  data?: T[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/** The next page's cursor: the platform sends `next` only when there is one. */
function nextCursor(page: GraphPage<unknown>): string | null {
  return page.paging?.next && page.paging.cursors?.after ? page.paging.cursors.after : null;
}

/** A lead the platform sent in a shape we cannot read is a permanent failure of that call, not a crash. */
function mapped<T>(map: () => T): PlatformResult<T> {
  try {
    return { kind: 'ok', value: map() };
  } catch (err) {
    if (err instanceof LeadExportError) return { kind: 'permanent', status: 200, message: `unreadable lead from the platform: ${err.message}` };
    throw err;
  }
}

function toUnixSeconds(since: number | string): number {
  return typeof since === 'number' ? Math.floor(since) : Math.floor(Date.parse(since) / 1000);
}

/** One lead by id with the page's token. pageId and formName stay null: the webhook and the form know them. */
export async function fetchLead(cfg: PlatformConfig, leadId: string, pageToken: string): Promise<PlatformResult<PlatformLead>> {
  const answer = await graphGet(cfg, encodeURIComponent(leadId), { access_token: pageToken, fields: LEAD_FIELDS });
  if (answer.kind !== 'ok') return answer;
  return mapped(() => leadFromGraph(answer.value as GraphLeadObject));
}

/** One page of a form's leads, newest first; `since` (unix seconds or ISO) keeps leads created after it. */
export async function listFormLeads(
  cfg: PlatformConfig,
  formId: string,
  token: string,
  opts: { since?: number | string; after?: string; limit?: number } = {},
): Promise<PlatformResult<LeadsPage>> {
  const filtering = opts.since === undefined ? undefined : JSON.stringify([{ field: 'time_created', operator: 'GREATER_THAN', value: toUnixSeconds(opts.since) }]);
  const answer = await graphGet(cfg, `${encodeURIComponent(formId)}/leads`, {
    access_token: token,
    fields: LEAD_FIELDS,
    limit: String(opts.limit ?? 100),
    filtering,
    after: opts.after,
  });
  if (answer.kind !== 'ok') return answer;
  const page = answer.value as GraphPage<GraphLeadObject>;
  return mapped(() => ({ leads: (page.data ?? []).map((g) => leadFromGraph(g)), after: nextCursor(page) }));
}

/** Every lead of a form created after `since`, following the cursors to the end. */
export async function fetchAllFormLeads(cfg: PlatformConfig, formId: string, token: string, opts: { since?: number | string } = {}): Promise<PlatformResult<PlatformLead[]>> {
  const leads: PlatformLead[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listFormLeads(cfg, formId, token, { since: opts.since, after, limit: 500 });
    if (page.kind !== 'ok') return page;
    leads.push(...page.value.leads);
    if (page.value.after === null) return { kind: 'ok', value: leads };
    after = page.value.after;
  }
}

/** All lead forms of a page, following the cursors. */
export async function listPageForms(cfg: PlatformConfig, pageId: string, token: string): Promise<PlatformResult<LeadForm[]>> {
  const forms: LeadForm[] = [];
  let after: string | undefined;
  for (;;) {
    const answer = await graphGet(cfg, `${encodeURIComponent(pageId)}/leadgen_forms`, { access_token: token, fields: 'id,name,status', limit: '100', after });
    if (answer.kind !== 'ok') return answer;
    const page = answer.value as GraphPage<LeadForm>;
    for (const f of page.data ?? []) forms.push({ id: String(f.id), name: String(f.name ?? ''), status: String(f.status ?? '') });
    const next = nextCursor(page);
    if (next === null) return { kind: 'ok', value: forms };
    after = next;
  }
}
