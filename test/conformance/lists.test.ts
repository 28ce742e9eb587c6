// Conformance: the common list parameters and envelope on every list endpoint of the specification -
// { data, next_cursor, has_more }, limit 1-100 (default 25), order asc|desc, updated_since as an ISO 8601
// time, and invalid_cursor for a cursor that is not from the previous page of the same list.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { SPEC_ENDPOINTS, SPEC_SCOPES, fill } from './spec.ts';

interface Ctx { server: TestServer; organizationId: string; webhookId: string }
const test = suite<Ctx>('Conformance: every list pages the same way');

const lists = SPEC_ENDPOINTS.filter((e) => e.list);
const freshKey = async (ctx: Ctx) => (await ctx.server.newKey(ctx.organizationId, [...SPEC_SCOPES])).key;
const pathOf = (ctx: Ctx, path: string) => fill(path, ctx.webhookId);
const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.organizationId = (await ctx.server.newOrganization({ scopes: [] })).organizationId;
  const hook = await ctx.server.request('POST', '/webhooks', {
    key: await freshKey(ctx), body: { url: 'https://example.com/hook', events: ['contact.created'] },
  });
  assert.is(hook.status, 201);
  ctx.webhookId = hook.body.id;
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('every list answers exactly data, next_cursor and has_more', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of lists) {
    const res = await ctx.server.request('GET', pathOf(ctx, endpoint.path), { key });
    const label = `${endpoint.path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
    assert.is(res.status, 200, label);
    assert.equal(Object.keys(res.body).sort(), ['data', 'has_more', 'next_cursor'], label);
    assert.ok(Array.isArray(res.body.data), label);
    assert.type(res.body.has_more, 'boolean', label);
    assert.ok(res.body.next_cursor === null || typeof res.body.next_cursor === 'string', label);
  }
});

test('limit outside 1-100 or not an integer, and an unknown order, are 400 validation_error naming the parameter', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of lists) {
    const cases: [string, string][] = [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=ten', 'limit'], ['limit=2.5', 'limit'], ['limit=99999999999999999999', 'limit'], ['order=sideways', 'order']];
    for (const [query, field] of cases) {
      const res = await ctx.server.request('GET', withQuery(pathOf(ctx, endpoint.path), query), { key });
      const label = `${endpoint.path}?${query}: ${res.status} ${JSON.stringify(res.body)}`;
      assert.is(res.status, 400, label);
      assert.is(res.body.error.code, 'validation_error', label);
      assert.ok(res.body.error.details.fields.some((f: { field: string }) => f.field === field), label);
      // Said in words, not "Invalid input: expected number, received string".
      if (query === 'limit=ten' || query === 'limit=2.5') assert.equal(res.body.error.details.fields, [{ field: 'limit', message: 'must be a whole number' }], label);
      // A whole number outside the range is named by its bound, once: limit=101 read "must be a whole number".
      if (query === 'limit=0') assert.equal(res.body.error.details.fields, [{ field: 'limit', message: 'Too small: expected number to be >=1' }], label);
      if (query === 'limit=101' || query === 'limit=99999999999999999999') assert.equal(res.body.error.details.fields, [{ field: 'limit', message: 'Too big: expected number to be <=100' }], label);
    }
    for (const query of ['limit=1', 'limit=100', 'order=asc', 'order=desc', 'order=DESC', 'cursor=', 'limit=&cursor=&order=&updated_since=']) {
      const res = await ctx.server.request('GET', withQuery(pathOf(ctx, endpoint.path), query), { key });
      assert.is(res.status, 200, `${endpoint.path}?${query}`);
    }
  }
});

test('updated_since takes an ISO 8601 time, also without an offset or with an unencoded +; anything else is 400', async (ctx) => {
  const key = await freshKey(ctx);
  const good = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123Z', '2026-01-01T02:00:00%2B02:00', '2026-01-01T02:00:00+02:00',
    '2026-01-01T00:00:00', '2026-01-01'];
  for (const endpoint of lists) {
    for (const value of good) {
      const res = await ctx.server.request('GET', withQuery(pathOf(ctx, endpoint.path), `updated_since=${value}`), { key });
      assert.is(res.status, 200, `${endpoint.path} updated_since=${value}: ${JSON.stringify(res.body)}`);
    }
    for (const value of ['yesterday', '2026-13-01T00:00:00Z', '12345']) {
      const res = await ctx.server.request('GET', withQuery(pathOf(ctx, endpoint.path), `updated_since=${value}`), { key });
      assert.is(res.status, 400, `${endpoint.path} updated_since=${value}`);
      assert.is(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.details.fields.map((f: { field: string }) => f.field), ['updated_since']);
    }
  }
});

test('a made-up cursor, or the cursor of another list, is 400 invalid_cursor on every list', async (ctx) => {
  const key = await freshKey(ctx);
  // A real cursor of the webhook list (two subscriptions, pages of one).
  assert.is((await ctx.server.request('POST', '/webhooks', { key, body: { url: 'https://example.com/two', events: ['lead.created'] } })).status, 201);
  const page = await ctx.server.request('GET', '/webhooks?limit=1', { key });
  assert.is(page.body.has_more, true);
  const foreign = page.body.next_cursor as string;
  for (const endpoint of lists) {
    const cursors = ['nonsense', 'eyJ9.AAAA', ...(endpoint.path === '/webhooks' ? [] : [foreign])];
    for (const cursor of cursors) {
      const res = await ctx.server.request('GET', withQuery(pathOf(ctx, endpoint.path), `cursor=${encodeURIComponent(cursor)}`), { key });
      assert.is(res.status, 400, `${endpoint.path} cursor=${cursor}: ${JSON.stringify(res.body)}`);
      assert.is(res.body.error.code, 'invalid_cursor');
    }
  }
  const next = await ctx.server.request('GET', `/webhooks?limit=1&cursor=${encodeURIComponent(foreign)}`, { key });
  assert.is(next.status, 200);
  assert.is(next.body.data.length, 1);
  assert.is(next.body.has_more, false);
  assert.is(next.body.next_cursor, null);
});

test('contacts page 25 at a time by default, newest change first, to the end without repeats', async (ctx) => {
  const key = await freshKey(ctx);
  const created: string[] = [];
  for (let i = 0; i < 27; i++) {
    const res = await ctx.server.request('POST', '/contacts', { key, body: { email: `page${i}@example.com` } });
    assert.is(res.status, 201);
    created.push(res.body.id);
  }
  const first = await ctx.server.request('GET', '/contacts', { key });
  assert.is(first.body.data.length, 25);
  // A client that always sends the parameters, blank on the first page, gets the same first page.
  assert.equal((await ctx.server.request('GET', '/contacts?cursor=&limit=', { key })).body, first.body);
  assert.is(first.body.has_more, true);
  const second = await ctx.server.request('GET', `/contacts?cursor=${encodeURIComponent(first.body.next_cursor)}`, { key });
  assert.is(second.body.data.length, 2);
  assert.is(second.body.has_more, false);
  assert.is(second.body.next_cursor, null);
  const seen = [...first.body.data, ...second.body.data];
  assert.equal(seen.map((c: { id: string }) => c.id).sort(), [...created].sort());
  const positions = seen.map((c: { updated_at: string; id: string }) => `${c.updated_at}|${c.id}`);
  assert.equal(positions, [...positions].sort().reverse());
  const ascending = await ctx.server.request('GET', '/contacts?order=asc&limit=100', { key });
  assert.equal(ascending.body.data.map((c: { id: string }) => c.id), seen.map((c: { id: string }) => c.id).reverse());
});

test.run();
