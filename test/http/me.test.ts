import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';

const test = suite<{ server: TestServer }>('GET /me');
test.before(async (ctx) => { ctx.server = await startTestServer(); });
test.after(async (ctx) => { await ctx.server.stop(); });

test('describes the calling key exactly', async ({ server }) => {
  const org = await server.newOrganization({ name: 'Acme', scopes: ['contacts:read', 'events:write'] });
  const res = await server.request('GET', '/me', { key: org.key });
  assert.is(res.status, 200);
  assert.equal(res.body.organization, { id: org.organizationId, name: 'Acme' });
  assert.is(res.body.key.id, org.keyId);
  assert.equal(res.body.key.scopes, ['contacts:read', 'events:write']);
  assert.is(res.body.key.expires_at, null);
  assert.is(res.body.rate_limit.per_minute, 120);
  assert.match(res.body.key.prefix, /^csk_[a-z0-9]{10}$/);
  assert.ok(org.key.startsWith(`${res.body.key.prefix}_`), 'the prefix is how the key begins');
});

test('a key created with a scope named twice lists it once', async ({ server }) => {
  const org = await server.newOrganization({ scopes: ['jobs:read', 'webhooks:read', 'jobs:read'] });
  const res = await server.request('GET', '/me', { key: org.key });
  assert.equal(res.body.key.scopes, ['jobs:read', 'webhooks:read']);
});

test('a missing, malformed or unknown key is 401 unauthorized', async ({ server }) => {
  for (const auth of [undefined, 'Bearer nope', 'Bearer csk_abcdefghij_' + 'A'.repeat(43)]) {
    const res = await server.request('GET', '/me', { headers: auth ? { authorization: auth } : {} });
    assert.is(res.status, 401);
    assert.is(res.body.error.code, 'unauthorized');
  }
});

test('an unknown route is 404 route_not_found in the error shape', async ({ server }) => {
  const org = await server.newOrganization();
  const res = await server.request('GET', '/nope', { key: org.key, headers: { 'accept-language': 'en' } });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'route_not_found');
  assert.is(res.body.error.message, 'No such endpoint.');
});

test.run();
