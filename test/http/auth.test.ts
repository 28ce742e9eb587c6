import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { revokeApiKey } from '../../commands/apikey/handlers.ts';
import { KeyCache } from '../../src/http/auth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { createItemsTable, newProbe, testRoutes } from './support/routes.ts';

/** A key cache that reports each key the NOTIFY listener tells it to forget. */
class WatchedKeyCache extends KeyCache {
  private readonly waiting = new Map<string, () => void>();
  forgotten(keyId: string): Promise<void> {
    return new Promise((resolve) => this.waiting.set(keyId, resolve));
  }
  override forgetKey(keyId: string): void {
    super.forgetKey(keyId);
    this.waiting.get(keyId)?.();
  }
}

interface Ctx { server: TestServer; app: ExtraApp; keys: WatchedKeyCache }
const test = suite<Ctx>('Authentication: bearer keys, revocation, expiry and scopes');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await createItemsTable(ctx.server.services.pool);
  ctx.keys = new WatchedKeyCache(ctx.server.services.pool);
  // A second API process on the same database, with its own key cache.
  ctx.app = await startApp(ctx.server.services, { keys: ctx.keys, extraRoutes: testRoutes(newProbe()) });
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

test('a revoked key is 401 key_revoked in another API process within 5 s, through NOTIFY', async (ctx) => {
  const org = await ctx.server.newOrganization();
  // Both processes have the key cached.
  assert.is((await ctx.server.request('GET', '/me', { key: org.key })).status, 200);
  assert.is((await ctx.app.request('GET', '/me', { key: org.key })).status, 200);
  const forgotten = ctx.keys.forgotten(org.keyId);
  const revokedAt = Date.now();
  await revokeApiKey(ctx.server.services.store, org.keyId, new Date());
  const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 5000).unref());
  assert.is.not(await Promise.race([forgotten, deadline]), 'late', 'the revocation did not reach the other process');
  const res = await ctx.app.request('GET', '/me', { key: org.key, headers: { 'accept-language': 'en' } });
  assert.ok(Date.now() - revokedAt < 5000);
  assert.is(res.status, 401);
  assert.equal(res.body.error, { code: 'key_revoked', message: 'The API key has been revoked.' });
});

test('an expired key is 401 key_expired', async (ctx) => {
  const org = await ctx.server.newOrganization({ expiresAt: new Date(Date.now() - 1000).toISOString() });
  const res = await ctx.server.request('GET', '/me', { key: org.key });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'key_expired');
});

test('a key that expires later works and /me shows its expiry', async (ctx) => {
  const expires = new Date(Date.now() + 3600_000).toISOString();
  const org = await ctx.server.newOrganization({ expiresAt: expires });
  const res = await ctx.server.request('GET', '/me', { key: org.key });
  assert.is(res.status, 200);
  assert.is(res.body.key.expires_at, expires);
});

test('a key with a wrong secret part, or a non-Bearer scheme, is 401 unauthorized', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const tampered = org.key.slice(0, -2) + (org.key.endsWith('AA') ? 'BB' : 'AA');
  for (const authorization of [`Bearer ${tampered}`, `Basic ${org.key}`, org.key, `Bearer ${org.key} extra`]) {
    const res = await ctx.server.request('GET', '/me', { headers: { authorization } });
    assert.is(res.status, 401, authorization);
    assert.is(res.body.error.code, 'unauthorized');
  }
});

/** GET /v1/me with each value as an Authorization field line of its own (fetch would join them into one). */
function meWithAuthorizations(origin: string, values: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}/v1/me`, { headers: ['Host', new URL(origin).host, ...values.flatMap((value) => ['Authorization', value])] }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
}

test('two Authorization fields are a wrong format, 401 unauthorized, whichever comes first', async (ctx) => {
  const a = await ctx.server.newOrganization();
  const b = await ctx.server.newOrganization();
  // Node kept the first field and dropped the other: the request was answered as organisation a's.
  for (const values of [[`Bearer ${a.key}`, `Bearer ${b.key}`], [`Bearer ${a.key}`, `Bearer ${a.key}`], [`Bearer ${a.key}`, 'Basic abc']]) {
    const res = await meWithAuthorizations(ctx.server.origin, values);
    assert.equal([res.status, res.body.error?.code], [401, 'unauthorized'], values.join(' | '));
  }
  assert.is((await meWithAuthorizations(ctx.server.origin, [`Bearer ${a.key}`])).status, 200);
});

test('every 401 carries the Bearer challenge HTTP requires; invalid_token when a key was sent and refused', async (ctx) => {
  const expired = await ctx.server.newOrganization({ expiresAt: new Date(Date.now() - 1000).toISOString() });
  const revoked = await ctx.server.newOrganization();
  await revokeApiKey(ctx.server.services.store, revoked.keyId, new Date());
  await ctx.server.settle(); // the revocation reaches the keys' read model through its projector
  const none = await ctx.server.request('GET', '/jobs');
  assert.is(none.status, 401);
  assert.is(none.headers.get('www-authenticate'), 'Bearer realm="api"');
  for (const [authorization, code] of [
    ['Bearer csk_nope_nope', 'unauthorized'], ['Basic abc', 'unauthorized'],
    [`Bearer ${expired.key}`, 'key_expired'], [`Bearer ${revoked.key}`, 'key_revoked'],
  ]) {
    const res = await ctx.server.request('POST', '/webhooks', { headers: { authorization }, body: {} });
    assert.is(res.body.error.code, code, authorization);
    assert.is(res.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"', authorization);
  }
  // Not on other errors: a 403 is not an authentication challenge.
  const org = await ctx.server.newOrganization({ scopes: [] });
  const forbidden = await ctx.server.request('GET', '/jobs', { key: org.key });
  assert.is(forbidden.status, 403);
  assert.is(forbidden.headers.get('www-authenticate'), null);
});

test('a missing scope is 403 insufficient_scope naming the scope', async (ctx) => {
  const org = await ctx.server.newOrganization({ scopes: ['events:read'] });
  const res = await ctx.app.request('GET', '/test/items', { key: org.key });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'insufficient_scope');
  assert.equal(res.body.error.details, { required_scope: 'contacts:read' });
  const write = await ctx.app.request('POST', '/test/echo', { key: org.key, body: { name: 'x' } });
  assert.equal(write.body.error.details, { required_scope: 'contacts:write' });
});

test('a :write scope includes :read of its area, leads:answers includes leads:read, nothing else is implied', async (ctx) => {
  const writer = await ctx.server.newOrganization({ scopes: ['contacts:write'] });
  assert.is((await ctx.app.request('GET', '/test/items', { key: writer.key })).status, 200);
  assert.is((await ctx.app.request('GET', '/test/leads-only', { key: writer.key })).status, 403);
  const answers = await ctx.server.newOrganization({ scopes: ['leads:answers'] });
  assert.is((await ctx.app.request('GET', '/test/leads-only', { key: answers.key })).status, 200);
  assert.is((await ctx.app.request('GET', '/test/items', { key: answers.key })).status, 403);
  const reader = await ctx.server.newOrganization({ scopes: ['contacts:read'] });
  const res = await ctx.app.request('POST', '/test/echo', { key: reader.key, body: { name: 'x' } });
  assert.is(res.status, 403);
});

test('a key without the scope is 403 insufficient_scope whatever its body or Idempotency-Key, as with a bad parameter', async (ctx) => {
  const reader = await ctx.server.newOrganization({ scopes: ['webhooks:read'] });
  const tooLarge = JSON.stringify({ url: 'https://example.com/in', events: ['contact.created'], description: 'x'.repeat(70_000) });
  const cases: [string, string, { body?: unknown; headers?: Record<string, string> }][] = [
    ['POST', '/webhooks', { body: 'not json' }],
    ['POST', '/webhooks', { body: { url: 'https://example.com/in', events: ['contact.created'], unknown: 1 } }],
    ['POST', '/webhooks', { body: tooLarge }],
    ['POST', '/webhooks', { body: { url: 'https://example.com/in', events: ['contact.created'] }, headers: { 'idempotency-key': 'a b' } }],
    ['PATCH', '/webhooks/00000000-0000-0000-0000-000000000000', { body: 'not json' }],
    ['POST', '/webhooks/00000000-0000-0000-0000-000000000000/test', { body: { x: 1 } }],
  ];
  for (const [method, path, options] of cases) {
    const res = await ctx.server.request(method, path, { key: reader.key, ...options });
    const label = `${method} ${path} ${String(options.body).slice(0, 40)}: ${res.status} ${JSON.stringify(res.body)}`;
    assert.is(res.status, 403, label);
    assert.equal(res.body.error.details, { required_scope: 'webhooks:write' }, label);
  }
});

test('GET /me needs no scope', async (ctx) => {
  const org = await ctx.server.newOrganization({ scopes: [] });
  const res = await ctx.server.request('GET', '/me', { key: org.key });
  assert.is(res.status, 200);
  assert.equal(res.body.key.scopes, []);
});

test.run();
