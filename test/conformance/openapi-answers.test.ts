// Conformance: every answer the service gives, success or error, is what the published OpenAPI document says
// for its operation and status: a status the operation documents, a body valid against the document's own JSON
// Schema for it (checked with a JSON Schema 2020-12 validator, not with our zod schemas) and no header it does
// not document. Each endpoint is driven with realistic data (leads with ads and answers, conversions accepted
// and refused by the sandbox platform, jobs, spend and creatives for the reports, webhook pushes to a local
// receiver), and with every error status its operation documents.
import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { startTestServer, type RequestOptions, type TestOrg, type TestServer } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { setupConversions, waitForDeliveries, type Setup } from '../conversions/support.ts';
import { importLead } from '../leads/support.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { eventually } from '../support/eventually.ts';
import { Given, spendDay } from '../reports/events.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { scopeOf } from '../../commands/job/kinds.ts';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { revokeApiKey } from '../../commands/apikey/handlers.ts';
import { SPEC_ENDPOINTS, fill } from './spec.ts';

// CommonJS packages: their default export is the module object under tsx.
const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as typeof import('ajv/dist/2020.js').default;
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof import('ajv-formats').default;

interface Answer { status: number; headers: Headers; body: any }
interface Ctx {
  server: TestServer; sandbox: Sandbox; receiver: Receiver; doc: any; ajv: InstanceType<typeof Ajv2020>;
  conv: Setup; key: string; used: number;
  /** What differed from the document, one line each. */
  problems: string[];
  /** 'METHOD /path status' of every answer checked. */
  seen: Set<string>;
}
const test = suite<Ctx>('Conformance: every answer matches the OpenAPI document');

const ALL_SCOPES = ['contacts:write', 'leads:answers', 'events:write', 'campaigns:read', 'creatives:read', 'jobs:read', 'webhooks:write'];
/** Headers of any HTTP answer, outside what an operation documents. */
const TRANSPORT_HEADERS = ['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'];
/** The document's schemas point at #/components/schemas; the validator holds them under one $id. */
const toValidator = (schema: unknown): any => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi#/$defs/'));

test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.receiver = await startReceiver((_push, res) => { res.statusCode = 200; res.end('ok'); });
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, DELIVERY_RETRY_SCHEDULE: '100ms,200ms' });
  ctx.doc = await (await fetch(`${ctx.server.origin}/v1/openapi.json`)).json();
  ctx.ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ctx.ajv);
  ctx.ajv.addSchema({ $id: 'openapi', $defs: toValidator(ctx.doc.components.schemas) });
  ctx.problems = [];
  ctx.seen = new Set();
  ctx.conv = await setupConversions(ctx.server, {
    kind: 'shop', status: 'paid', eventName: 'Purchase',
    targets: [{ datasetId: '3001', mode: 'live' }, { datasetId: '3002', mode: 'test', testCode: 'TEST9' }],
  });
  ctx.sandbox.setDatasetBehaviour('3002', { mode: 'refuse', refuseCode: 100, refuseMessage: 'Invalid parameter' });
  ctx.key = ctx.conv.key;
  ctx.used = 0;
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.receiver.close();
  await ctx.sandbox.stop();
});

function headerSchema(ctx: Ctx, header: any): any {
  return header.$ref ? ctx.doc.components.headers[header.$ref.split('/').pop()] : header;
}

/** Checks one answer of `METHOD template` against the document and records what differs. */
function check(ctx: Ctx, method: string, template: string, path: string, res: Answer): void {
  const where = `${method} ${template} (${path}) ${res.status}`;
  ctx.seen.add(`${method} ${template} ${res.status}`);
  const op = ctx.doc.paths[template]?.[method.toLowerCase()];
  if (!op) return void ctx.problems.push(`${where}: no such operation`);
  const response = op.responses[String(res.status)];
  if (!response) return void ctx.problems.push(`${where}: status not documented: ${JSON.stringify(res.body)?.slice(0, 200)}`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema && res.body !== undefined) ctx.problems.push(`${where}: a body, but none is documented`);
  if (schema) {
    if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) ctx.problems.push(`${where}: content-type ${res.headers.get('content-type')}`);
    const validate = ctx.ajv.compile(toValidator(schema));
    if (!validate(res.body)) ctx.problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 5))} in ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const documented = new Map(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), headerSchema(ctx, header)]));
  for (const [name, header] of documented) {
    const value = res.headers.get(name);
    // Idempotent-Replayed is there on a replay only; every other documented header on every answer.
    if (value === null && name !== 'idempotent-replayed') ctx.problems.push(`${where}: documented header ${name} missing`);
    if (value !== null && header.schema.type === 'integer' && !/^\d+$/.test(value)) ctx.problems.push(`${where}: header ${name}: ${value} is not an integer`);
    if (value !== null && header.schema.enum && !header.schema.enum.includes(value)) ctx.problems.push(`${where}: header ${name}: ${value}`);
  }
  res.headers.forEach((_value, name) => {
    if (!documented.has(name) && !TRANSPORT_HEADERS.includes(name)) ctx.problems.push(`${where}: undocumented header ${name}`);
  });
}

/** A body over 64 KB sent with a GET or DELETE (fetch sends none with a GET), checked like any other answer. */
async function callWithBigBody(ctx: Ctx, method: string, template: string, path: string): Promise<void> {
  const body = JSON.stringify({ padding: 'x'.repeat(70_000) });
  const res = await new Promise<Answer>((resolve, reject) => {
    const headers = { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(`${ctx.server.origin}/v1${path}`, { method, headers }, (answer) => {
      let text = '';
      answer.on('data', (chunk) => { text += chunk; });
      answer.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') received.set(name, value);
        resolve({ status: answer.statusCode ?? 0, headers: received, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  check(ctx, method, template, path, res);
}

/** A request to /v1{path}, checked as an answer of `METHOD template`; by default with a key of every scope. */
async function call(ctx: Ctx, method: string, template: string, path = template, options: RequestOptions = {}): Promise<Answer> {
  if (!('key' in options)) {
    // A fresh key every 100 requests: the rate limit is not what these calls are about.
    if (++ctx.used % 100 === 0) ctx.key = (await ctx.server.newKey(ctx.conv.organizationId, ALL_SCOPES)).key;
    options = { ...options, key: ctx.key };
  }
  const res = await ctx.server.request(method, path, options);
  check(ctx, method, template, path, res);
  return res;
}

test('contacts and leads: success and their own errors', async (ctx) => {
  const { server, conv } = ctx;
  // A webhook first, so that what follows is pushed (and GET /webhooks/{id}/deliveries has attempts).
  const hook = await call(ctx, 'POST', '/webhooks', '/webhooks', { body: { url: ctx.receiver.url('/all'), events: ['contact.created', 'contact.stage_changed', 'lead.created', 'delivery.failed'], description: 'All of it' } });
  assert.is(hook.status, 201, JSON.stringify(hook.body));
  await call(ctx, 'GET', '/me');

  const ada = await call(ctx, 'POST', '/contacts', '/contacts', { body: { name: 'Ada Lovelace', phone: '+48601234567', email: 'ada@example.com', tags: ['vip'] } });
  assert.is(ada.status, 201);
  const id = ada.body.id;
  const bare = await call(ctx, 'POST', '/contacts', '/contacts', { body: { email: 'bare@example.com' } });
  await call(ctx, 'POST', '/contacts', '/contacts', { body: { email: 'ada@example.com' } });
  await call(ctx, 'POST', '/contacts', '/contacts', { body: { name: 'x'.repeat(201) } });
  await call(ctx, 'POST', '/contacts', '/contacts', { body: '{ not json' });
  await call(ctx, 'GET', '/contacts/{id}', `/contacts/${id}`);
  await call(ctx, 'PATCH', '/contacts/{id}', `/contacts/${id}`, { body: { name: 'Ada King', tags: ['vip', 'eng'] } });
  await call(ctx, 'PATCH', '/contacts/{id}', `/contacts/${bare.body.id}`, { body: { email: 'ada@example.com' } });
  await call(ctx, 'PATCH', '/contacts/{id}', `/contacts/${bare.body.id}`, { body: { email: '' } });
  await call(ctx, 'POST', '/contacts/{id}/stage', `/contacts/${id}/stage`, { body: { stage: 'contacted' } });
  await call(ctx, 'POST', '/contacts/{id}/stage', `/contacts/${id}/stage`, { body: { stage: 'contacted' } });
  await call(ctx, 'POST', '/contacts/{id}/stage', `/contacts/${id}/stage`, { body: { stage: 'sold', value: 120.5, currency: 'PLN' } });
  await call(ctx, 'POST', '/contacts/{id}/notes', `/contacts/${id}/notes`, { body: { kind: 'call', text: 'Called, will buy', time: new Date(Date.now() - 3600_000).toISOString() } });
  await call(ctx, 'POST', '/contacts/{id}/tags', `/contacts/${id}/tags`, { body: { add: ['hot'], remove: ['eng'] } });
  await call(ctx, 'POST', '/contacts/{id}/sms-optout', `/contacts/${id}/sms-optout`, { body: { sms_optout: true } });
  for (const query of ['', '?limit=1', '?stage=sold', '?tag=vip', '?email=ada@example.com', '?phone=%2B48601234567', '?order=asc&updated_since=2020-01-01T00:00:00Z', '?limit=101', '?cursor=bogus', '?campaign=c-1']) {
    await call(ctx, 'GET', '/contacts', `/contacts${query}`);
  }
  const page = await call(ctx, 'GET', '/contacts', '/contacts?limit=1');
  await call(ctx, 'GET', '/contacts', `/contacts?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);

  // A merged card answers 409 contact_merged wherever it is named.
  const merged = await call(ctx, 'POST', '/contacts', '/contacts', { body: { name: 'Twin', email: 'twin@example.com' } });
  await server.services.waiter.waitFor(['contacts'], (await mergeContacts(server.services, { fromId: merged.body.id, intoId: id }, new Date())).position, 10_000);
  await server.settle();
  await call(ctx, 'GET', '/contacts/{id}', `/contacts/${merged.body.id}`);
  await call(ctx, 'PATCH', '/contacts/{id}', `/contacts/${merged.body.id}`, { body: { name: 'Twin' } });
  for (const [action, body] of [['stage', { stage: 'qualified' }], ['notes', { text: 'x' }], ['tags', { add: ['x'] }], ['sms-optout', { sms_optout: false }]] as const) {
    await call(ctx, 'POST', `/contacts/{id}/${action}`, `/contacts/${merged.body.id}/${action}`, { body });
  }

  // Leads: one with an ad and answers, one organic; answers only for leads:answers.
  const submitted = new Date(Date.now() - 86_400_000).toISOString().replace('Z', '+0000');
  await importLead(server, conv, { id: '7001', email: 'lead.one@example.com', name: 'Lead One', phone: '+48601000001', ad: 'ad-1', adset: 'as-1', campaign: 'c-1', budget: '5000', created: submitted });
  await importLead(server, conv, { id: '7002', email: 'lead.two@example.com', name: 'Lead Two' });
  const leads = await call(ctx, 'GET', '/leads');
  assert.is(leads.body.data.length, 2);
  const withAd = leads.body.data.find((l: any) => l.platform_lead_id === '7001');
  for (const query of ['?limit=1', '?campaign=c-1', '?stage=new', '?from=2020-01-01&to=2099-12-31', '?from=yesterday', `?contact=${withAd.contact_id}`, `?form=${withAd.form_id}`]) {
    await call(ctx, 'GET', '/leads', `/leads${query}`);
  }
  const reader = await server.newKey(conv.organizationId, ['leads:read', 'contacts:read']);
  await call(ctx, 'GET', '/leads', '/leads', { key: reader.key });
  await call(ctx, 'GET', '/leads/{id}', `/leads/${withAd.id}`, { key: reader.key });
  await call(ctx, 'GET', '/leads/{id}', `/leads/${withAd.id}`);
  await call(ctx, 'POST', '/contacts/{id}/stage', `/contacts/${withAd.contact_id}/stage`, { body: { stage: 'sold', value: 300, currency: 'PLN' } });
  await call(ctx, 'GET', '/contacts/{id}', `/contacts/${withAd.contact_id}`);
});

test('conversions, deliveries and jobs', async (ctx) => {
  const { server, conv } = ctx;
  const order = { source: conv.sourceId, external_id: 'order-1', status: 'paid', consent: true, email: 'buyer@example.com', value: 199.99, currency: 'PLN', event_time: Math.floor(Date.now() / 1000) - 60 };
  const accepted = await call(ctx, 'POST', '/events', '/events', { body: order });
  assert.is(accepted.status, 202, JSON.stringify(accepted.body));
  await call(ctx, 'POST', '/events', '/events', { body: order });
  await call(ctx, 'POST', '/events', '/events', { body: { ...order, value: 5 } });
  await call(ctx, 'POST', '/events', '/events', { body: { source: conv.sourceId, external_id: 'order-2', status: 'lead', consent: true, phone: '+48601000002' } });
  await call(ctx, 'POST', '/events', '/events', { body: { ...order, source: 'no-such-source' } });
  await call(ctx, 'POST', '/events', '/events', { body: { ...order, consent: false } });
  const deliveries = await waitForDeliveries(server, conv.key, [accepted.body.event_id]);
  assert.equal(deliveries.map((d) => d.status).sort(), ['accepted', 'failed']);
  await call(ctx, 'GET', '/events/{id}', `/events/${accepted.body.event_id}`);
  for (const query of ['', '?limit=1', `?source=${conv.sourceId}`, '?status=paid', '?external_id=order-1', '?order=asc']) await call(ctx, 'GET', '/events', `/events${query}`);
  for (const query of ['', '?status=accepted', '?status=failed', '?status=nope', `?event=${accepted.body.event_id}`, `?target=${conv.targets[0].id}`]) {
    await call(ctx, 'GET', '/deliveries', `/deliveries${query}`);
  }

  const queued = await enqueueJob(server.services, { organizationId: conv.organizationId, kind: 'lead_import', scope: scopeOf.page('page-x'), params: {}, trigger: 'operator' }, { organizationId: conv.organizationId, actor: 'test' });
  await server.settle();
  for (const query of ['', '?status=queued', '?status=nope']) await call(ctx, 'GET', '/jobs', `/jobs${query}`);
  await call(ctx, 'GET', '/jobs/{number}', `/jobs/${queued.number}`);
  await call(ctx, 'GET', '/jobs/{number}', '/jobs/abc');
});

test('campaign and creative reports over spend, creatives and leads of an ad account', async (ctx) => {
  const { server, conv } = ctx;
  const given = new Given(server.services.store, conv.organizationId);
  const today = new Date().toISOString().slice(0, 10);
  const ad = { campaign: 'c-1', adset: 'as-1', ad: 'ad-1' };
  await given.accountConnected('act_9', 'PLN');
  await given.spendSynced('act_9', 'PLN', [spendDay(ad, today, 100, { impressions: 10_000, clicks: 150, reach: 8000, platform_leads: 2 })]);
  await given.syncSucceeded('act_9', today, today, new Date().toISOString());
  await given.creativeSynced('act_9', 'ad-1', { video_id: 'V9', format: 'video', title: 'Hook' });
  await server.settle();
  const report = await call(ctx, 'GET', '/campaigns/report');
  assert.ok(report.body.rows.length > 0, JSON.stringify(report.body));
  for (const query of ['?level=adset', '?level=ad', '?level=ad&campaign=c-1', '?from=2024-01-01&to=2024-01-31', '?level=nope', '?from=2020-01-01&to=2024-01-01']) {
    await call(ctx, 'GET', '/campaigns/report', `/campaigns/report${query}`);
  }
  const creatives = await call(ctx, 'GET', '/creatives/report');
  assert.ok(creatives.body.rows.length > 0, JSON.stringify(creatives.body));
  for (const query of ['?weeks=8', '?weeks=3', '?format=video', '?tag=hook:question', '?tag=bad', '?campaign=c-1', '?ad_account=act_9']) {
    await call(ctx, 'GET', '/creatives/report', `/creatives/report${query}`);
  }
});

const PUSH_TYPES = ['contact.created', 'contact.stage_changed', 'delivery.failed', 'lead.created', 'ping'];

test('webhooks: test ping, rotation, attempts, pause, limit and removal; the pushes received', async (ctx) => {
  const [hook] = (await call(ctx, 'GET', '/webhooks')).body.data;
  await call(ctx, 'GET', '/webhooks/{id}', `/webhooks/${hook.id}`);
  await call(ctx, 'POST', '/webhooks/{id}/test', `/webhooks/${hook.id}/test`);
  await call(ctx, 'POST', '/webhooks/{id}/rotate-secret', `/webhooks/${hook.id}/rotate-secret`);
  const pushTypes = () => [...new Set(ctx.receiver.received.map((push) => String(push.headers['x-service-event'])))].sort();
  await eventually('a push of every type', () => pushTypes().length === PUSH_TYPES.length);
  await ctx.server.settle();
  const attempts = await call(ctx, 'GET', '/webhooks/{id}/deliveries', `/webhooks/${hook.id}/deliveries`);
  assert.ok(attempts.body.data.length > 0);
  await call(ctx, 'GET', '/webhooks/{id}/deliveries', `/webhooks/${hook.id}/deliveries?limit=1`);
  await call(ctx, 'GET', '/webhooks/{id}', `/webhooks/${hook.id}`);
  await call(ctx, 'PATCH', '/webhooks/{id}', `/webhooks/${hook.id}`, { body: { active: false, description: 'Paused' } });
  await call(ctx, 'PATCH', '/webhooks/{id}', `/webhooks/${hook.id}`, { body: { url: 'http://example.com/plain' } });
  await call(ctx, 'POST', '/webhooks', '/webhooks', { body: { url: 'https://127.0.0.1/x', events: ['lead.created'] } });
  for (let i = 0; i < 10; i++) await call(ctx, 'POST', '/webhooks', '/webhooks', { body: { url: `https://example.com/h${i}`, events: ['lead.created'] } });
  await call(ctx, 'DELETE', '/webhooks/{id}', `/webhooks/${hook.id}`);

  // The pushes the receiver got are what the document's `webhooks` section says: body and headers.
  for (const push of ctx.receiver.received) {
    const type = String(push.headers['x-service-event']);
    const op = ctx.doc.webhooks[type]?.post;
    if (!op) { ctx.problems.push(`push ${type}: not documented`); continue; }
    const validate = ctx.ajv.compile(toValidator(op.requestBody.content['application/json'].schema));
    if (!validate(JSON.parse(push.body))) ctx.problems.push(`push ${type}: ${JSON.stringify(validate.errors?.slice(0, 5))} in ${push.body.slice(0, 300)}`);
    for (const header of op.parameters) {
      const value = push.headers[header.name.toLowerCase()];
      const ok = typeof value === 'string' && (header.schema.type !== 'integer' || /^\d+$/.test(value)) && (!header.schema.pattern || new RegExp(header.schema.pattern).test(value)) && (header.schema.const === undefined || value === header.schema.const);
      if (!ok) ctx.problems.push(`push ${type}: header ${header.name}: ${value}`);
    }
  }
  assert.equal(pushTypes(), PUSH_TYPES);
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const BODIES: Record<string, unknown> = {
  'POST /contacts': { name: 'Body' }, 'PATCH /contacts/{id}': { name: 'Body' }, 'POST /contacts/{id}/stage': { stage: 'contacted' },
  'POST /contacts/{id}/notes': { text: 'Body' }, 'POST /contacts/{id}/tags': { add: ['body'] }, 'POST /contacts/{id}/sms-optout': { sms_optout: true },
  'POST /events': { source: 'no-such-source', external_id: 'x', status: 'paid', consent: true },
  'POST /webhooks': { url: 'https://example.com/body', events: ['lead.created'] }, 'PATCH /webhooks/{id}': { description: 'Body' },
};

test('the errors every operation documents: 400, 401, 403, 404, 413 (a GET or DELETE with a body too), 409 and 422 of the Idempotency-Key, 429', async (ctx) => {
  const { server, conv } = ctx;
  const revoked = await server.newKey(conv.organizationId, ALL_SCOPES);
  await revokeApiKey(server.services.store, revoked.keyId, new Date());
  await server.settle();
  const expired = await server.newKey(conv.organizationId, ALL_SCOPES, new Date(Date.now() - 1000).toISOString());
  const jobsOnly = await server.newKey(conv.organizationId, ['jobs:read']);
  const webhooksOnly = await server.newKey(conv.organizationId, ['webhooks:read']);
  const limited = await server.newKey(conv.organizationId, ALL_SCOPES);
  // The limited key's window used up right before each of its calls: windows are clock minutes, and a minute that
  // turned during the loop gave the later operations a fresh window (their 429 never answered).
  const exhaustLimited = async () => {
    for (let i = 0; i < 1000; i++) if ((await server.request('GET', '/me', { key: limited.key })).status === 429) return;
    assert.unreachable('GET /me never answered 429 to one key');
  };
  for (const endpoint of SPEC_ENDPOINTS) {
    const { method, path: template } = endpoint;
    const path = fill(template, UNKNOWN_ID);
    const body = BODIES[`${method} ${template}`];
    await call(ctx, method, template, path, { key: undefined, body, headers: { 'accept-language': 'en' } });
    await call(ctx, method, template, path, { key: revoked.key, body });
    await call(ctx, method, template, path, { key: expired.key, body });
    if (endpoint.scope) await call(ctx, method, template, path, { key: template.startsWith('/jobs') ? webhooksOnly.key : jobsOnly.key, body });
    await call(ctx, method, template, `${path}?zz_unknown=1`, { body });
    await exhaustLimited();
    await call(ctx, method, template, path, { key: limited.key, body });
    if (template.includes('{')) await call(ctx, method, template, path, { body });
    if (body) await call(ctx, method, template, path, { body: { ...(body as object), padding: 'x'.repeat(70_000) } });
    if (method === 'GET' || method === 'DELETE') await callWithBigBody(ctx, method, template, path);
    if (method === 'POST') {
      // The same request again: the stored answer replayed. The same key with another path or body: 422. The
      // same request while the first still runs: 409.
      const headers = { 'idempotency-key': `errors-${template}` };
      await call(ctx, method, template, path, { body, headers });
      const replayed = await call(ctx, method, template, path, { body, headers });
      assert.is(replayed.headers.get('idempotent-replayed'), 'true');
      await call(ctx, method, template, template.includes('{') ? fill(template, `${UNKNOWN_ID.slice(0, -1)}1`) : path, { body: { ...(body as object), another: 1 }, headers });
      await server.services.pool.query(`UPDATE idempotency_records SET state = 'running' WHERE idempotency_key = $1`, [headers['idempotency-key']]);
      await call(ctx, method, template, path, { body, headers });
    }
  }
  // The document itself, asked without a key.
  const res = await server.request('GET', '/openapi.json');
  check(ctx, 'GET', '/openapi.json', '/openapi.json', res);
});

test('no answer differed from the document, and every documented status but 500 was answered', (ctx) => {
  assert.equal(ctx.problems, []);
  // GET /me needs no scope: its 403 documents the common status, never answered.
  const neverAnswered = new Set(['GET /me 403']);
  const missing: string[] = [];
  for (const [path, operations] of Object.entries<any>(ctx.doc.paths)) {
    if (path === '/openapi.json') continue;
    for (const [method, op] of Object.entries<any>(operations)) {
      for (const status of Object.keys(op.responses)) {
        const answer = `${method.toUpperCase()} ${path} ${status}`;
        if (status !== '500' && !neverAnswered.has(answer) && !ctx.seen.has(answer)) missing.push(answer);
      }
    }
  }
  assert.equal(missing, []);
});

test.run();
