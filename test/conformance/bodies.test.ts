// Conformance: request bodies and Idempotency-Key on every endpoint of the specification that takes
// them - 413 payload_too_large over 64 KB, 400 invalid_json for text that is not JSON or for an unknown
// field, and the Idempotency-Key rules (replay with Idempotent-Replayed, 422 for another body, 400 for
// a key that is not 1-255 visible ASCII characters) on every POST.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { SPEC_ENDPOINTS, SPEC_SCOPES, fill, sampleBody, type SpecEndpoint } from './spec.ts';

interface Ctx { server: TestServer; organizationId: string; contactId: string; webhookId: string }
const test = suite<Ctx>('Conformance: bodies and Idempotency-Key on every endpoint that takes them');

const unique = () => `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const freshKey = async (ctx: Ctx) => (await ctx.server.newKey(ctx.organizationId, [...SPEC_SCOPES])).key;
const pathOf = (ctx: Ctx, e: SpecEndpoint) => fill(e.path, e.path.startsWith('/webhooks') ? ctx.webhookId : ctx.contactId);
const withBody = SPEC_ENDPOINTS.filter((e) => e.body);
const posts = SPEC_ENDPOINTS.filter((e) => e.method === 'POST');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.organizationId = (await ctx.server.newOrganization({ scopes: [] })).organizationId;
  const key = await freshKey(ctx);
  const contact = await ctx.server.request('POST', '/contacts', { key, body: { email: 'owner@example.com' } });
  const hook = await ctx.server.request('POST', '/webhooks', { key, body: { url: 'https://example.com/hook', events: ['contact.created'] } });
  assert.is(contact.status, 201);
  assert.is(hook.status, 201);
  ctx.contactId = contact.body.id;
  ctx.webhookId = hook.body.id;
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('a body over 64 KB is 413 payload_too_large; one just under is read', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of withBody) {
    const sample = sampleBody(endpoint, unique())!;
    const big = JSON.stringify({ ...sample.body, padding: 'x'.repeat(64 * 1024) });
    const res = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, body: big });
    assert.is(res.status, 413, `${endpoint.method} ${endpoint.path}: ${res.status}`);
    assert.is(res.body.error.code, 'payload_too_large');
    // Under the limit the body is read, and the unknown padding field is what is refused.
    const under = JSON.stringify({ ...sample.body, padding: 'x'.repeat(60 * 1024) });
    const read = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, body: under });
    assert.is(read.status, 400, `${endpoint.method} ${endpoint.path} under 64 KB: ${read.status}`);
    assert.is(read.body.error.code, 'invalid_json');
    assert.equal(read.body.error.details, { unknown_fields: ['padding'] });
  }
});

test('text that is not a JSON object is 400 invalid_json on every endpoint with a body', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of withBody) {
    for (const text of ['{"name":', 'name=x', '"a string"', 'null', '{"a":1}}', '[]', '[{"name":"x"}]', '12']) {
      const res = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, body: text });
      assert.is(res.status, 400, `${endpoint.method} ${endpoint.path} ${text}: ${res.status}`);
      assert.is(res.body.error.code, 'invalid_json', `${endpoint.method} ${endpoint.path} ${text}`);
    }
  }
});

test('a body nested thousands of levels deep is a 400 like any bad value, with or without an Idempotency-Key, never 500', async (ctx) => {
  const key = await freshKey(ctx);
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  for (const endpoint of withBody) {
    const sample = sampleBody(endpoint, unique())!;
    const field = Object.keys(sample.body)[0];
    for (const depth of [5_000, 30_000]) {
      for (const headers of [{}, { 'idempotency-key': `deep-${unique()}` }] as Record<string, string>[]) {
        const label = `${endpoint.method} ${endpoint.path} depth ${depth} ${JSON.stringify(headers)}`;
        // A field of the body's own, nested: a bad value of that field.
        const known = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, headers, body: `{"${field}":${deep(depth)}}` });
        assert.is(known.status, 400, `${label}: ${known.status} ${JSON.stringify(known.body)}`);
        assert.is(known.body.error.code, 'validation_error', label);
        assert.ok(known.body.error.details.fields.some((f: { field: string }) => f.field.split('.')[0] === field), label);
        // An unknown field, nested: an unknown field.
        const unknown = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, headers, body: `{"zz":${deep(depth)}}` });
        assert.is(unknown.status, 400, `${label}: ${unknown.status} ${JSON.stringify(unknown.body)}`);
        assert.is(unknown.body.error.code, 'invalid_json', label);
      }
    }
  }
  for (const endpoint of posts.filter((e) => !e.body)) {
    const res = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body: `{"zz":${deep(30_000)}}` });
    assert.is(res.status, 400, `POST ${endpoint.path}: ${res.status}`);
    assert.is(res.body.error.code, 'invalid_json');
  }
});

test('a field the specification marks required, left out, is 400 validation_error naming it "required", enums and booleans too', async (ctx) => {
  const key = await freshKey(ctx);
  const required: Record<string, string[]> = {
    'POST /contacts/{id}/stage': ['stage'],
    'POST /contacts/{id}/notes': ['text'],
    'POST /contacts/{id}/sms-optout': ['sms_optout'],
    'POST /events': ['source', 'external_id', 'status', 'consent'],
    'POST /webhooks': ['url', 'events'],
  };
  for (const endpoint of withBody) {
    const fields = required[`${endpoint.method} ${endpoint.path}`] ?? [];
    const sample = sampleBody(endpoint, unique())!;
    for (const field of fields) {
      const { [field]: _left, ...rest } = { ...sample.body, [field]: null } as Record<string, unknown>;
      const res = await ctx.server.request(endpoint.method, pathOf(ctx, endpoint), { key, body: rest });
      const label = `${endpoint.method} ${endpoint.path} without ${field}: ${res.status} ${JSON.stringify(res.body)}`;
      assert.is(res.status, 400, label);
      assert.is(res.body.error.code, 'validation_error', label);
      assert.equal(res.body.error.details.fields, [{ field, message: 'required' }], label);
    }
  }
});

test('every POST replays its stored answer for the same Idempotency-Key and body, with Idempotent-Replayed: true', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of posts) {
    const body = sampleBody(endpoint, unique())?.body;
    const headers = { 'idempotency-key': `replay-${unique()}` };
    const first = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body, headers });
    const again = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body, headers });
    const label = `POST ${endpoint.path}: ${first.status} ${JSON.stringify(first.body)}`;
    assert.ok(first.status < 500, label);
    assert.is(first.headers.get('idempotent-replayed'), null, label);
    assert.is(again.status, first.status, label);
    assert.equal(again.body, first.body, label);
    assert.is(again.headers.get('idempotent-replayed'), 'true', label);
    if (body) {
      const other = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body: { ...body, zz_other: 1 }, headers });
      assert.is(other.status, 422, label);
      assert.is(other.body.error.code, 'idempotency_key_reused', label);
    }
  }
});

test('an Idempotency-Key that is not 1-255 visible ASCII characters is 400 validation_error on every POST', async (ctx) => {
  const key = await freshKey(ctx);
  for (const endpoint of posts) {
    for (const bad of ['with space', 'x'.repeat(256), 'tab\tkey']) {
      const res = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body: sampleBody(endpoint, unique())?.body, headers: { 'idempotency-key': bad } });
      const label = `POST ${endpoint.path} key ${JSON.stringify(bad.slice(0, 20))}: ${res.status}`;
      assert.is(res.status, 400, label);
      assert.is(res.body.error.code, 'validation_error', label);
      assert.equal(res.body.error.details.fields.map((f: { field: string }) => f.field), ['Idempotency-Key'], label);
    }
    const longest = await ctx.server.request('POST', pathOf(ctx, endpoint), { key, body: sampleBody(endpoint, unique())?.body, headers: { 'idempotency-key': unique().padEnd(255, '~') } });
    assert.is.not(longest.body?.error?.code, 'validation_error', `POST ${endpoint.path} with a 255-character key`);
  }
});

test.run();
