// GET endpoints of the Graph API the service reads: leads, forms, ad accounts, ads, creatives.
import { accountKey } from './catalog.ts';
import { invalidParameter, invalidToken, isBadToken, unknownObject, unknownPath, type GraphErrorAnswer } from './graph-errors.ts';
import { decodeCursor, pageLimit, pageOf, parseFields, project, type GetAnswer, type GetRequest } from './http-util.ts';
import { insightsAnswer } from './insights-route.ts';
import type { SandboxStore } from './store.ts';

const ok = (body: unknown): GetAnswer => ({ status: 200, body });

/** GET /{id}: whichever seeded object carries the id (lead, ad, creative, page, form, ad account). */
function node(store: SandboxStore, id: string, url: URL): GetAnswer {
  const fields = parseFields(url.searchParams.get('fields'));
  const { catalog } = store;
  if (id.startsWith('act_')) {
    const account = catalog.accounts.get(accountKey(id));
    return account ? ok(project({ ...account }, fields)) : unknownObject(id);
  }
  const lead = catalog.leads.get(id);
  if (lead) return ok(project({ ...lead }, fields));
  const ad = catalog.ads.get(id);
  if (ad) {
    const creative = catalog.creatives.get(ad.creativeId) ?? { id: ad.creativeId };
    const creativeFields = fields?.get('creative');
    const full = { id: ad.id, name: ad.name, creative: creativeFields ? project(creative, parseFields(creativeFields)) : { id: ad.creativeId } };
    return ok(project(full, fields));
  }
  const creative = catalog.creatives.get(id);
  if (creative) return ok(project(creative, fields));
  const page = catalog.pages.get(id);
  if (page) return ok(project({ id: page.id, name: page.name }, fields));
  const form = catalog.forms.get(id);
  if (form) return ok(project({ id: form.id, name: form.name, status: form.status, page_id: form.pageId, questions: form.questions }, fields));
  return unknownObject(id);
}

/** The `filtering` parameter of /{form}/leads: only time_created comparisons, as the platform allows. */
function createdAfter(raw: string | null): number | null | 'bad' {
  if (raw === null) return null;
  let rules: unknown;
  try {
    rules = JSON.parse(raw);
  } catch {
    return 'bad';
  }
  if (!Array.isArray(rules)) return 'bad';
  let after: number | null = null;
  for (const rule of rules as Array<Record<string, unknown>>) {
    if (rule?.field !== 'time_created' || rule.operator !== 'GREATER_THAN') return 'bad';
    const value = Number(rule.value);
    if (!Number.isFinite(value)) return 'bad';
    after = Math.max(after ?? value, value);
  }
  return after;
}

function formLeads(store: SandboxStore, formId: string, req: GetRequest): GetAnswer {
  if (!store.catalog.forms.has(formId)) return unknownObject(formId);
  const after = createdAfter(req.url.searchParams.get('filtering'));
  if (after === 'bad') return invalidParameter('(#100) Filtering field time_created with operation GREATER_THAN is the only supported filter');
  const start = decodeCursor(req.url.searchParams.get('after'));
  if (start === null) return invalidParameter('(#100) Invalid cursor');
  const limit = pageLimit(req.url.searchParams.get('limit'), 1000);
  const fields = parseFields(req.url.searchParams.get('fields'));
  const all = store.catalog.formLeads(formId, after);
  const items = all.slice(start, start + limit).map((lead) => project({ ...lead }, fields));
  return ok(pageOf(items, req.url, start, limit, start + limit < all.length, req.base));
}

function pageForms(store: SandboxStore, pageId: string, req: GetRequest): GetAnswer {
  if (!store.catalog.pages.has(pageId)) return unknownObject(pageId);
  const start = decodeCursor(req.url.searchParams.get('after'));
  if (start === null) return invalidParameter('(#100) Invalid cursor');
  const limit = pageLimit(req.url.searchParams.get('limit'), 1000);
  const fields = parseFields(req.url.searchParams.get('fields'));
  const all = store.catalog.pageForms(pageId).map((f) => project({ id: f.id, name: f.name, status: f.status, questions: f.questions }, fields ?? parseFields('id,name,status')));
  return ok(pageOf(all.slice(start, start + limit), req.url, start, limit, start + limit < all.length, req.base));
}

export function handleGraphGet(store: SandboxStore, req: GetRequest): GetAnswer {
  if (isBadToken(req.token)) return invalidToken();
  const [id, edge, ...rest] = req.segments;
  if (id === undefined || rest.length > 0) return unknownPath();
  if (edge === undefined) return node(store, id, req.url);
  if (edge === 'insights' && id.startsWith('act_')) {
    const key = accountKey(id);
    return store.catalog.accounts.has(key) ? insightsAnswer(store, key, req) : unknownObject(id);
  }
  if (edge === 'leads') return formLeads(store, id, req);
  if (edge === 'leadgen_forms') return pageForms(store, id, req);
  return unknownPath();
}
