// Conformance: every endpoint of the specification's table asks for exactly the scope the table names,
// answers 403 insufficient_scope with details.required_scope without it, and accepts every scope that
// includes it (a :write scope includes :read of its area; leads:answers includes leads:read).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { SPEC_ENDPOINTS, SPEC_SCOPES, fill, sampleBody, scopesGranting } from './spec.ts';

interface Ctx { server: TestServer; organizationId: string }
const test = suite<Ctx>('Conformance: the scope of every endpoint is the one of the specification');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.organizationId = (await ctx.server.newOrganization({ scopes: [] })).organizationId;
});
test.after(async (ctx) => { await ctx.server.stop(); });

const unique = () => `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

test('without its scope (all the others held) every endpoint is 403 insufficient_scope naming the scope', async (ctx) => {
  for (const scope of SPEC_SCOPES) {
    const endpoints = SPEC_ENDPOINTS.filter((e) => e.scope === scope);
    if (!endpoints.length) continue;
    const held = SPEC_SCOPES.filter((s) => !scopesGranting(scope).includes(s));
    const { key } = await ctx.server.newKey(ctx.organizationId, held);
    for (const endpoint of endpoints) {
      const res = await ctx.server.request(endpoint.method, fill(endpoint.path), { key, body: sampleBody(endpoint, unique())?.body });
      const label = `${endpoint.method} ${endpoint.path}: ${res.status} ${JSON.stringify(res.body)}`;
      assert.is(res.status, 403, label);
      assert.equal(res.body, { error: { code: 'insufficient_scope', message: res.body.error.message, details: { required_scope: scope } } }, label);
    }
  }
});

test('every scope that includes the required one is enough', async (ctx) => {
  for (const endpoint of SPEC_ENDPOINTS) {
    for (const scope of endpoint.scope ? scopesGranting(endpoint.scope) : []) {
      const { key } = await ctx.server.newKey(ctx.organizationId, [scope]);
      const res = await ctx.server.request(endpoint.method, fill(endpoint.path), { key, body: sampleBody(endpoint, unique())?.body });
      const label = `${endpoint.method} ${endpoint.path} with ${scope}: ${res.status} ${JSON.stringify(res.body)}`;
      assert.ok(res.status < 500 && res.status !== 403 && res.status !== 401, label);
    }
  }
});

test('a key without any scope may call GET /me, and is refused everywhere else', async (ctx) => {
  const { key } = await ctx.server.newKey(ctx.organizationId, []);
  const me = await ctx.server.request('GET', '/me', { key });
  assert.is(me.status, 200);
  assert.equal(me.body.key.scopes, []);
  for (const endpoint of SPEC_ENDPOINTS.filter((e) => e.scope)) {
    const res = await ctx.server.request(endpoint.method, fill(endpoint.path), { key, body: sampleBody(endpoint, unique())?.body });
    assert.is(res.status, 403, `${endpoint.method} ${endpoint.path}`);
    assert.is(res.body.error.details.required_scope, endpoint.scope);
  }
});

test.run();
