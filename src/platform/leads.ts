// Reading leads and lead forms from the platform: one lead by id, a form's leads page by page, a page's forms.
import { graphGet, type PlatformConfig, type PlatformResult } from './graph.ts';
import { leadFromGraph, LeadExportError, type GraphLeadObject, type PlatformLead } from './lead-export.ts';

// The export parsing lives beside the Graph mapping it shares; these are the names other modules import from here.
export { leadFromGraph, LeadExportError } from './lead-export.ts';
export { parseLeadExport, decodeExportFile } from './lead-export-file.ts';
export type { AdSource, GraphLeadObject, LeadAnswer, PlatformLead } from './lead-export.ts';

const LEAD_FIELDS = 'id,created_time,ad_id,ad_name,adset_id,adset_name,campaign_id,campaign_name,form_id,platform,field_data,is_organic';

export interface LeadForm {
  id: string;
  name: string;
  status: string;
  /** The question shown in the form, by field key (the form's `questions`); empty when the platform gave none. */
  labels: Record<string, string>;
}

/** Form fields the service reads: the name, and the questions whose labels a lead's answers show. */
const FORM_FIELDS = 'id,name,status,questions';

/** The labels of a form's `questions` ([{ key, label, type }]), by key; anything else in it is ignored. */
function questionLabels(questions: unknown): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!Array.isArray(questions)) return labels;
  for (const q of questions as Array<{ key?: unknown; label?: unknown }>) {
    if (typeof q?.key === 'string' && typeof q.label === 'string' && q.label.trim() !== '') labels[q.key] = q.label;
  }
  return labels;
}

function formOf(f: { id?: unknown; name?: unknown; status?: unknown; questions?: unknown }): LeadForm {
  return { id: String(f.id), name: String(f.name ?? ''), status: String(f.status ?? ''), labels: questionLabels(f.questions) };
}

/**
 * A lead's answers labelled with the form's questions as the person saw them; an answer whose key the form
 * does not list keeps the label made from its key.
 */
export function withFormLabels(lead: PlatformLead, labels: Record<string, string>): PlatformLead {
  return { ...lead, answers: lead.answers.map((a) => (Object.hasOwn(labels, a.key) ? { ...a, label: labels[a.key]! } : a)) };
}

/** One lead form by id: its name and its questions' labels. */
export async function fetchForm(cfg: PlatformConfig, formId: string, token: string): Promise<PlatformResult<LeadForm>> {
  const answer = await graphGet(cfg, encodeURIComponent(formId), { access_token: token, fields: FORM_FIELDS });
  if (answer.kind !== 'ok') return answer;
  return { kind: 'ok', value: formOf({ id: formId, ...(answer.value as object) }) };
}

/** A lead of a listed page that could not be read: named by its id (empty when it has none) and the reason. */
export interface UnreadableLead {
  platformLeadId: string;
  reason: string;
}

export interface LeadsPage {
  leads: PlatformLead[];
  /** Leads of the page in a shape we cannot read: the page's other leads are still read. */
  unreadable: UnreadableLead[];
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
  const listed: LeadsPage = { leads: [], unreadable: [], after: nextCursor(page) };
  // Lead by lead: one the platform sends in a shape we cannot read must not cost the page's other leads.
  for (const g of Array.isArray(page.data) ? page.data : []) {
    try {
      if (g === null || typeof g !== 'object') throw new LeadExportError('not a lead object', null);
      listed.leads.push(leadFromGraph(g));
    } catch (err) {
      if (!(err instanceof LeadExportError)) throw err;
      listed.unreadable.push({ platformLeadId: idOf(g), reason: err.message });
    }
  }
  return { kind: 'ok', value: listed };
}

/** A lead object's id as far as it can be told, for naming it. */
const idOf = (g: unknown): string => {
  const id = (g as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
};

/** Every readable lead of a form created after `since`, following the cursors to the end (listFormLeads names the others). */
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
    const answer = await graphGet(cfg, `${encodeURIComponent(pageId)}/leadgen_forms`, { access_token: token, fields: FORM_FIELDS, limit: '100', after });
    if (answer.kind !== 'ok') return answer;
    const page = answer.value as GraphPage<{ id?: unknown; name?: unknown; status?: unknown; questions?: unknown }>;
    for (const f of page.data ?? []) forms.push(formOf(f));
    const next = nextCursor(page);
    if (next === null) return { kind: 'ok', value: forms };
    after = next;
  }
}
