// /__sandbox/... : the in-process control surface over HTTP (JSON), for the README demo and other processes.
import type { z } from 'zod';
import * as s from './control-schemas.ts';
import { deliverLeadgen } from './leadgen.ts';
import type { SandboxStore } from './store.ts';

export interface ControlRequest {
  method: string;
  /** Path after /__sandbox, e.g. /datasets/123/behaviour */
  path: string;
  query: URLSearchParams;
  body: string;
  contentType: string;
}

export interface ControlAnswer {
  status: number;
  body: unknown;
}

type Handler = (store: SandboxStore, params: string[], req: ControlRequest) => ControlAnswer | Promise<ControlAnswer>;

class BadRequest extends Error {}

function input<T extends z.ZodType>(schema: T, req: ControlRequest): z.output<T> {
  let json: unknown;
  try {
    json = req.body.trim() === '' ? {} : JSON.parse(req.body);
  } catch {
    throw new BadRequest('body is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new BadRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

const done = (body: unknown = { ok: true }): ControlAnswer => ({ status: 200, body });

const ROUTES: Array<[method: string, pattern: RegExp, handler: Handler]> = [
  ['POST', /^\/reset$/, (store) => (store.reset(), done())],
  ['GET', /^\/datasets\/([^/]+)\/received$/, (store, [id]) => done(store.received(id))],
  ['PUT', /^\/datasets\/([^/]+)\/behaviour$/, (store, [id], req) => (store.setDatasetBehaviour(id, input(s.behaviourSchema, req)), done())],
  ['POST', /^\/pages$/, (store, _p, req) => (input(s.pagesSchema, req).forEach((p) => store.seedPage(p)), done())],
  ['POST', /^\/forms$/, (store, _p, req) => (input(s.formsSchema, req).forEach((f) => store.seedForm(f)), done())],
  ['POST', /^\/leads$/, (store, _p, req) => done({ leads: input(s.leadsSchema, req).map((l) => store.seedLead(l)) })],
  ['POST', /^\/ad-accounts$/, (store, _p, req) => done({ accounts: input(s.accountsSchema, req).map((a) => store.seedAdAccount(a)) })],
  ['POST', /^\/ad-accounts\/([^/]+)\/insights$/, (store, [acc], req) => (store.seedInsights(acc, input(s.insightRowsSchema, req)), done())],
  ['POST', /^\/ad-accounts\/([^/]+)\/insights\/generate$/, (store, [acc], req) => done(store.generateInsights(acc, input(s.generateSchema, req)))],
  ['PUT', /^\/insights-limit$/, (store, _p, req) => (store.setInsightsCellLimit(input(s.cellLimitSchema, req).cells), done())],
  ['POST', /^\/ads$/, (store, _p, req) => (input(s.adsSchema, req).forEach((a) => store.seedAd(a)), done())],
  ['POST', /^\/creatives$/, (store, _p, req) => (input(s.creativesSchema, req).forEach((c) => store.seedCreative(c)), done())],
  ['PUT', /^\/sheets\/([^/]+)$/, (store, [name], req) => (store.seedSheet(name.replace(/\.csv$/, ''), req.body), done())],
  ['POST', /^\/failures$/, (store, _p, req) => (store.injectFailures(input(s.failureSchema, req)), done())],
  ['GET', /^\/requests$/, (store, _p, req) => done({ count: store.requestsTo(req.query.get('match') ?? '') })],
  ['POST', /^\/leadgen\/deliver$/, async (_store, _p, req) => {
    const { url, appSecret, ...notice } = input(s.deliverLeadgenSchema, req);
    return done(await deliverLeadgen(url, appSecret, notice));
  }],
];

export async function handleControl(store: SandboxStore, req: ControlRequest): Promise<ControlAnswer> {
  for (const [method, pattern, handler] of ROUTES) {
    const match = pattern.exec(req.path);
    if (!match) continue;
    if (method !== req.method) continue;
    try {
      return await handler(store, match.slice(1).map(decodeURIComponent), req);
    } catch (err) {
      if (err instanceof BadRequest) return { status: 400, body: { error: { message: err.message } } };
      throw err;
    }
  }
  return { status: 404, body: { error: { message: `no sandbox control route ${req.method} ${req.path}` } } };
}
