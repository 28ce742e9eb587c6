// Conformance: no value of the wrong type, size or shape in any body field or query parameter of the
// specification makes the service answer 5xx - each is refused in the error shape (or accepted).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type Reply, type TestServer } from '../support/server.ts';
import { setupConversions } from '../conversions/support.ts';
import { SPEC_SCOPES } from './spec.ts';

interface Ctx { server: TestServer; organizationId: string; contactId: string; webhookId: string; sourceId: string; keys: number }
const test = suite<Ctx>('Conformance: hostile values are 4xx, never 5xx');

const HOSTILE: unknown[] = [
  null, 0, -1, 1.5, 1e308, -1e308, 2 ** 63, 1e15, true, '', ' ', 'x'.repeat(3000), [], {}, ['a'], [null], [1, 2], { a: 1 },
  '\u202eevil', '😀'.repeat(60), '1970-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '9999-12-31T23:59:59Z', '-1', 'NaN',
];
const QUERY_HOSTILE = ['', ' ', 'x'.repeat(3000), '-1', '1e400', 'null', '[]', '2026-02-30', '😀', '%25', 'a,b', '0x10'];

const BODY_FIELDS: Record<string, string[]> = {
  'POST /contacts': ['name', 'phone', 'email', 'tags'],
  'PATCH /contacts/{contact}': ['name', 'phone', 'email', 'tags'],
  'POST /contacts/{contact}/stage': ['stage', 'value', 'currency'],
  'POST /contacts/{contact}/notes': ['kind', 'text', 'time'],
  'POST /contacts/{contact}/tags': ['add', 'remove'],
  'POST /contacts/{contact}/sms-optout': ['sms_optout'],
  'POST /events': ['source', 'external_id', 'status', 'consent', 'event_time', 'event_id', 'email', 'phone', 'lead_id', 'user_id',
    'fbp', 'fbc', 'event_source_url', 'tracking_id', 'client_ip_address', 'client_user_agent', 'value', 'currency', 'content_ids'],
  'POST /webhooks': ['url', 'events', 'description'],
  'PATCH /webhooks/{webhook}': ['url', 'events', 'description', 'active'],
};
const QUERIES: Record<string, string[]> = {
  '/contacts': ['limit', 'order', 'updated_since', 'stage', 'tag', 'email', 'phone', 'campaign', 'adset', 'ad'],
  '/leads': ['form', 'campaign', 'adset', 'ad', 'contact', 'stage', 'from', 'to'],
  '/events': ['source', 'status', 'external_id'],
  '/deliveries': ['status', 'event', 'target'],
  '/campaigns/report': ['from', 'to', 'level', 'campaign', 'adset'],
  '/creatives/report': ['from', 'to', 'format', 'campaign', 'ad_account', 'tag', 'weeks'],
  '/jobs': ['status', 'limit'],
  '/webhooks/{webhook}/deliveries': ['limit', 'order', 'updated_since'],
};

test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  const conv = await setupConversions(ctx.server, { kind: 'shop', status: 'paid', targets: [{ datasetId: '444555666', mode: 'test', testCode: 'TEST1' }] });
  ctx.organizationId = conv.organizationId;
  ctx.sourceId = conv.sourceId;
  const contact = await ctx.server.request('POST', '/contacts', { key: conv.key, body: { email: 'hostile@example.com', phone: '+48601000111' } });
  const hook = await ctx.server.request('POST', '/webhooks', { key: conv.key, body: { url: 'https://example.com/hostile', events: ['lead.created'] } });
  ctx.contactId = contact.body.id;
  ctx.webhookId = hook.body.id;
});
test.after(async (ctx) => { await ctx.server.stop(); });

/** A key per 100 requests keeps every key under the 120 a minute of the specification. */
function keyRing(ctx: Ctx) {
  let key = '';
  let used = 100;
  return async () => {
    if (used++ >= 100) { key = (await ctx.server.newKey(ctx.organizationId, [...SPEC_SCOPES])).key; used = 1; }
    return key;
  };
}

function assertNot5xx(res: Reply, label: string): void {
  assert.ok(res.status < 500, `${label}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`);
  if (res.status >= 400) assert.type(res.body?.error?.code, 'string', label);
}

const validBody = (ctx: Ctx, route: string): Record<string, unknown> => ({
  'POST /contacts': { email: `h${Math.random().toString(36).slice(2)}@example.com` },
  'PATCH /contacts/{contact}': { name: 'Hostile' },
  'POST /contacts/{contact}/stage': { stage: 'qualified' },
  'POST /contacts/{contact}/notes': { text: 'note' },
  'POST /contacts/{contact}/tags': { add: ['t'] },
  'POST /contacts/{contact}/sms-optout': { sms_optout: false },
  'POST /events': { source: ctx.sourceId, external_id: `h${Math.random().toString(36).slice(2)}`, status: 'other', consent: true },
  'POST /webhooks': { url: 'https://example.com/h', events: ['lead.created'] },
  'PATCH /webhooks/{webhook}': { description: 'h' },
}[route]!);

test('every body field of every write endpoint, given a hostile value', async (ctx) => {
  const nextKey = keyRing(ctx);
  for (const [route, fields] of Object.entries(BODY_FIELDS)) {
    const [method, template] = route.split(' ');
    const path = template.replace('{contact}', ctx.contactId).replace('{webhook}', ctx.webhookId);
    for (const field of fields) {
      for (const value of HOSTILE) {
        const res = await ctx.server.request(method, path, { key: await nextKey(), body: { ...validBody(ctx, route), [field]: value } });
        assertNot5xx(res, `${route} ${field}=${JSON.stringify(value)?.slice(0, 40)}`);
      }
    }
  }
});

test('every query parameter of every read endpoint, given a hostile value', async (ctx) => {
  const nextKey = keyRing(ctx);
  for (const [template, params] of Object.entries(QUERIES)) {
    const path = template.replace('{webhook}', ctx.webhookId);
    for (const param of params) {
      for (const value of QUERY_HOSTILE) {
        const res = await ctx.server.request('GET', `${path}?${param}=${encodeURIComponent(value)}`, { key: await nextKey() });
        assertNot5xx(res, `GET ${template}?${param}=${value.slice(0, 40)}`);
      }
    }
  }
});

test.run();
