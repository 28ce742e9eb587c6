import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp; org: TestOrg }
const test = suite<Ctx>('Hygiene: request ids, no X-Powered-By, no CORS, JSON everywhere');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.app = await startApp(ctx.server.services, { extraRoutes: testRoutes(newProbe()) });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

/** A spread of answers: success, each kind of failure, and the public document. */
async function sample(ctx: Ctx, headers: Record<string, string> = {}) {
  const key = ctx.org.key;
  return {
    ok: await ctx.server.request('GET', '/me', { key, headers }),
    unauthorized: await ctx.server.request('GET', '/me', { headers }),
    notFound: await ctx.server.request('GET', '/nope', { key, headers }),
    wrongMethod: await ctx.server.request('PUT', '/me', { key, headers }),
    badJson: await ctx.app.request('POST', '/test/echo', { key, body: '{', headers }),
    tooLarge: await ctx.app.request('POST', '/test/echo', { key, body: 'x'.repeat(70_000), headers }),
    failure: await ctx.app.request('POST', '/test/fail', { key, headers }),
    preflight: await ctx.server.request('OPTIONS', '/me', { key, headers: { ...headers, 'access-control-request-method': 'GET' } }),
    outside: await fetch(`${ctx.server.origin}/elsewhere`, { headers }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() })),
    document: await ctx.server.request('GET', '/openapi.json', { headers }),
  };
}

test('every answer is JSON with an X-Request-Id and no X-Powered-By or CORS headers', async (ctx) => {
  const answers = await sample(ctx, { origin: 'https://shop.example' });
  for (const [name, res] of Object.entries(answers)) {
    assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/, name);
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, name);
    assert.is(res.headers.get('x-powered-by'), null, name);
    for (const [header] of res.headers) assert.not.match(header, /^access-control-/, `${name}: ${header}`);
    assert.ok(res.headers.get('x-ratelimit-limit'), name);
  }
  assert.is(answers.ok.status, 200);
  assert.is(answers.preflight.status, 404);
  assert.is(answers.preflight.body.error.code, 'route_not_found');
  assert.is(answers.outside.body.error.code, 'route_not_found');
  assert.is(answers.badJson.body.error.code, 'invalid_json');
  assert.is(answers.tooLarge.body.error.code, 'payload_too_large');
  assert.is(answers.failure.body.error.code, 'internal_error');
});

test('a sane X-Request-Id is kept; anything else is replaced', async (ctx) => {
  const kept = await ctx.server.request('GET', '/me', { key: ctx.org.key, headers: { 'x-request-id': 'client-req_42:a.b' } });
  assert.is(kept.headers.get('x-request-id'), 'client-req_42:a.b');
  for (const bad of ['has space', 'x'.repeat(129), '<script>', 'a,b']) {
    const res = await ctx.server.request('GET', '/nope', { key: ctx.org.key, headers: { 'x-request-id': bad } });
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, bad);
  }
});

test('/healthz answers without a key', async (ctx) => {
  const res = await fetch(`${ctx.server.origin}/healthz`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok' });
});

test('a request line over the 16 KB header limit is the JSON error body, not an empty answer', async (ctx) => {
  const res = await fetch(`${ctx.server.origin}/v1/contacts?tag=${'x'.repeat(20_000)}`, { headers: { authorization: `Bearer ${ctx.org.key}` } });
  assert.is(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = await res.json() as { error: { code: string; message: string } };
  assert.is(body.error.code, 'validation_error');
  assert.ok(body.error.message.length > 0);
});

test('a request Node refuses before the app reads it still carries X-Request-Id and the rate-limit headers', async (ctx) => {
  const url = `${ctx.server.origin}/v1/contacts?tag=${'x'.repeat(20_000)}`;
  const before = await ctx.server.request('GET', '/openapi.json');
  const refused = await fetch(url, { headers: { authorization: `Bearer ${ctx.org.key}` } });
  assert.is(refused.status, 400);
  assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  // Its key was never read: it counts for the client's address, as every request without a valid key.
  assert.is(refused.headers.get('x-ratelimit-limit'), before.headers.get('x-ratelimit-limit'));
  const sameWindow = refused.headers.get('x-ratelimit-reset') === before.headers.get('x-ratelimit-reset');
  const remaining = Number(sameWindow ? before.headers.get('x-ratelimit-remaining') : before.headers.get('x-ratelimit-limit')) - 1;
  assert.is(Number(refused.headers.get('x-ratelimit-remaining')), remaining);
});

test.run();
