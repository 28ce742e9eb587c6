// Conformance: what every endpoint of the specification answers at the edge - the error body's shape and
// language, 401 without a valid key, the rate-limit and request-id headers on every answer, 404 not_found
// for an unknown id or number, and 400 (never 500) for ids and values PostgreSQL cannot hold.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MESSAGES } from '../../src/http/messages.ts';
import { startTestServer, type Reply, type TestServer } from '../support/server.ts';
import { SPEC_ENDPOINTS, SPEC_SCOPES, fill, sampleBody } from './spec.ts';

interface Ctx { server: TestServer; organizationId: string }
const test = suite<Ctx>('Conformance: errors, headers and ids at the edge of every endpoint');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.organizationId = (await ctx.server.newOrganization({ scopes: [] })).organizationId;
});
test.after(async (ctx) => { await ctx.server.stop(); });

const unique = () => `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const withId = SPEC_ENDPOINTS.filter((e) => e.path.includes('{'));
/** A key of its own per test keeps each test well under 120 requests a minute. */
const freshKey = async (ctx: Ctx) => (await ctx.server.newKey(ctx.organizationId, [...SPEC_SCOPES])).key;

function assertErrorShape(res: Reply, status: number, code: string, label: string): void {
  assert.is(res.status, status, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.ok(res.headers.get('content-type')?.startsWith('application/json'), label);
  const { error, ...rest } = res.body;
  assert.equal(rest, {}, label);
  assert.is(error.code, code, label);
  assert.type(error.message, 'string', label);
  assert.ok(Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k)), label);
  if ('details' in error) assert.ok(error.details && typeof error.details === 'object' && Object.keys(error.details).length, label);
}

test('without a key every endpoint is 401 unauthorized, in Polish by default and in English for en', async (ctx) => {
  for (const endpoint of SPEC_ENDPOINTS) {
    const label = `${endpoint.method} ${endpoint.path}`;
    const body = sampleBody(endpoint, unique())?.body;
    const pl = await ctx.server.request(endpoint.method, fill(endpoint.path), { body });
    assertErrorShape(pl, 401, 'unauthorized', label);
    assert.is(pl.body.error.message, MESSAGES.unauthorized.pl, label);
    const en = await ctx.server.request(endpoint.method, fill(endpoint.path), { body, headers: { 'accept-language': 'en-US,en;q=0.9' } });
    assertErrorShape(en, 401, 'unauthorized', label);
    assert.is(en.body.error.message, MESSAGES.unauthorized.en, label);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id']) {
      assert.ok(en.headers.get(name), `${label}: ${name}`);
    }
  }
});

test('every answer carries X-Request-Id and the three rate-limit headers (Reset in Unix seconds)', async (ctx) => {
  const key = await freshKey(ctx);
  let remaining = 121;
  let window = 0;
  for (const endpoint of SPEC_ENDPOINTS) {
    const res = await ctx.server.request(endpoint.method, fill(endpoint.path), { key, body: sampleBody(endpoint, unique())?.body });
    const label = `${endpoint.method} ${endpoint.path}: ${res.status}`;
    assert.ok(res.status < 500, label);
    assert.ok(res.headers.get('x-request-id'), label);
    assert.is(res.headers.get('x-ratelimit-limit'), '120', label);
    const left = Number(res.headers.get('x-ratelimit-remaining'));
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    // Within one window every request lowers Remaining; a new window (a later Reset) starts again.
    assert.ok(Number.isInteger(left) && (left < remaining || reset > window), label);
    remaining = left;
    window = reset;
    const now = Date.now() / 1000;
    assert.ok(Number.isInteger(reset) && reset > now - 1 && reset <= now + 61, `${label}: reset ${reset}`);
  }
});

test('an unknown id or number is 404 not_found (not route_not_found) on every endpoint that has one', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of withId) {
    const res = await ctx.server.request(endpoint.method, fill(endpoint.path), {
      key, body: sampleBody(endpoint, unique())?.body, headers: { 'accept-language': 'en' },
    });
    assertErrorShape(res, 404, 'not_found', `${endpoint.method} ${endpoint.path}`);
    assert.is(res.body.error.message, MESSAGES.not_found.en);
  }
  const unknownSource = await ctx.server.request('POST', '/events', { key, body: sampleBody(SPEC_ENDPOINTS.find((e) => e.path === '/events')!, unique())!.body });
  assertErrorShape(unknownSource, 404, 'not_found', 'POST /events with an unknown source');
});

test('a job number that is a whole number but no job is 404 not_found; one that is not a number is 400', async (ctx) => {
  const key = await freshKey(ctx);
  for (const number of ['0', '-1', '999999', '2147483648', '9007199254740991']) {
    assertErrorShape(await ctx.server.request('GET', `/jobs/${number}`, { key }), 404, 'not_found', `/jobs/${number}`);
  }
  for (const number of ['abc', '1.5', '1e3x']) {
    assertErrorShape(await ctx.server.request('GET', `/jobs/${number}`, { key }), 400, 'validation_error', `/jobs/${number}`);
  }
});

test('limit and a job number are whole numbers written in decimal digits: 0x10, 1e1, 1.0 or +5 are 400 validation_error', async (ctx) => {
  const key = await freshKey(ctx);
  for (const written of ['0x10', '1e1', '1.0', '+5', '0b11', ' 5']) {
    const limit = await ctx.server.request('GET', `/contacts?limit=${encodeURIComponent(written)}`, { key });
    assertErrorShape(limit, 400, 'validation_error', `limit=${written}`);
    assert.is(limit.body.error.details.field, 'limit');
    const job = await ctx.server.request('GET', `/jobs/${encodeURIComponent(written)}`, { key });
    assertErrorShape(job, 400, 'validation_error', `/jobs/${written}`);
  }
  assert.is((await ctx.server.request('GET', '/contacts?limit=05', { key })).status, 200);
  assertErrorShape(await ctx.server.request('GET', '/jobs/01', { key }), 404, 'not_found', '/jobs/01');
});

test('an unknown query parameter is 400 validation_error naming it on every endpoint, writes included', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of SPEC_ENDPOINTS) {
    const label = `${endpoint.method} ${endpoint.path}`;
    const res = await ctx.server.request(endpoint.method, `${fill(endpoint.path)}?zz_unknown=1`, { key, body: sampleBody(endpoint, unique())?.body });
    assertErrorShape(res, 400, 'validation_error', label);
    assert.equal(res.body.error.details.fields, [{ field: 'zz_unknown', message: 'unknown parameter' }], label);
  }
});

test('a query parameter given twice is 400 validation_error naming it once and saying so, whatever its values', async (ctx) => {
  const key = await freshKey(ctx);
  const twice: Array<[path: string, field: string]> = [
    ['/jobs?status=done&status=failed', 'status'], // both valid: "expected one of ... done ..." misled
    ['/jobs?limit=1&limit=1', 'limit'],
    ['/webhooks?order=asc&order=desc', 'order'],
    ['/contacts?stage=new&stage=sold', 'stage'],
    ['/campaigns/report?level=ad&level=adset', 'level'],
    ['/creatives/report?tag=hook:a&tag=offer:b', 'tag'], // was two lines, one "expected array to have >=3 items"
    ['/creatives/report?weeks=4&weeks=5&format=video', 'weeks'],
  ];
  for (const [path, field] of twice) {
    const res = await ctx.server.request('GET', path, { key });
    assertErrorShape(res, 400, 'validation_error', path);
    assert.equal(res.body.error.details.fields, [{ field, message: 'given more than once; give it once' }], path);
  }
  // Another bad parameter beside it keeps its own message; an unknown one written twice is still unknown.
  const mixed = await ctx.server.request('GET', '/jobs?status=done&status=done&limit=0', { key });
  assert.equal(mixed.body.error.details.fields.map((f: { field: string }) => f.field).sort(), ['limit', 'status']);
  const unknown = await ctx.server.request('GET', '/jobs?zz=1&zz=2', { key });
  assert.equal(unknown.body.error.details.fields, [{ field: 'zz', message: 'unknown parameter' }]);
});

test('an id with a NUL character or a broken percent-encoding is 400 validation_error, never 500', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of withId) {
    for (const id of ['%00', 'a%00b', '%E0%A4%A', '%FF']) {
      const res = await ctx.server.request(endpoint.method, fill(endpoint.path, id, id), { key, body: sampleBody(endpoint, unique())?.body });
      assertErrorShape(res, 400, 'validation_error', `${endpoint.method} ${fill(endpoint.path, id, id)}`);
    }
  }
});

// The query parser read a broken percent-encoding leniently (a U+FFFD, or the % kept), so ?tag=%E0%A4%A filtered on a
// tag nobody wrote and answered 200 with an empty page, where the same bytes in the path were 400.
test('a query parameter with a broken percent-encoding is 400 validation_error naming it, never a filter on U+FFFD', async (ctx) => {
  const key = await freshKey(ctx);
  const cases: [string, string][] = [['/contacts?tag=%E0%A4%A', 'tag'], ['/contacts?email=a%FF@example.com', 'email'],
    ['/events?external_id=%', 'external_id'], ['/leads?contact=%zz', 'contact'], ['/jobs?limit=5&status=%C3', 'status'],
    ['/contacts?%E0%A4%A=1', '%E0%A4%A'], ['/campaigns/report?campaign=%E0%A4%A&level=adset', 'campaign']];
  for (const [path, field] of cases) {
    const res = await ctx.server.request('GET', path, { key });
    assertErrorShape(res, 400, 'validation_error', path);
    assert.equal(res.body.error.details.fields, [{ field, message: 'malformed percent-encoding' }], path);
  }
  // Well-formed encodings are read as before: a space as %20 or +, a % as %25, a Polish letter as UTF-8.
  for (const path of ['/contacts?tag=a%20b', '/contacts?tag=a+b', '/contacts?tag=100%25', '/contacts?tag=%C5%BC%C3%B3%C5%82w']) {
    const res = await ctx.server.request('GET', path, { key });
    assert.is(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  }
});

test('a NUL character or a lone surrogate in a query value or a body string is 400 validation_error naming the field', async (ctx) => {
  const key = await freshKey(ctx);
  const queries = ['/contacts?tag=a%00', '/contacts?email=a%00@example.com', '/leads?form=%00', '/leads?contact=%00',
    '/events?source=%00', '/events?external_id=x%00', '/deliveries?event=%00', '/deliveries?target=%00',
    '/campaigns/report?campaign=%00&level=adset', '/creatives/report?format=%00'];
  for (const path of queries) {
    const res = await ctx.server.request('GET', path, { key });
    assertErrorShape(res, 400, 'validation_error', path);
    assert.ok(res.body.error.details.fields.length >= 1, path);
  }
  const contact = await ctx.server.request('POST', '/contacts', { key, body: { email: `${unique()}@example.com` } });
  const webhook = await ctx.server.request('POST', '/webhooks', { key, body: { url: 'https://example.com/hook', events: ['lead.created'] } });
  assert.is(contact.status, 201);
  assert.is(webhook.status, 201);
  for (const endpoint of SPEC_ENDPOINTS) {
    const sample = sampleBody(endpoint, unique());
    if (!sample?.nulField) continue;
    const path = fill(endpoint.path, endpoint.path.startsWith('/webhooks') ? webhook.body.id : contact.body.id);
    for (const bad of ['a\u0000b', 'x\ud800']) {
      const res = await ctx.server.request(endpoint.method, path, { key, body: { ...sample.body, [sample.nulField]: bad } });
      const label = `${endpoint.method} ${endpoint.path} ${JSON.stringify(bad)}`;
      assertErrorShape(res, 400, 'validation_error', label);
      assert.equal(res.body.error.details.fields.map((f: { field: string }) => f.field), [sample.nulField], label);
    }
  }
  // Nothing was written: the contact still has its first name, the webhook its empty description.
  assert.is((await ctx.server.request('GET', `/contacts/${contact.body.id}`, { key })).body.name, '');
  assert.is((await ctx.server.request('GET', `/webhooks/${webhook.body.id}`, { key })).body.description, '');
});

test.run();
