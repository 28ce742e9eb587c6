import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeApp, createApp } from '../../src/http/app.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { eventually } from '../support/eventually.ts';
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

/** A raw connection and everything the server has sent on it. */
async function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk) => { received += chunk.toString('utf8'); });
  return { socket, received: () => received, answers: () => received.match(/HTTP\/1\.1 \d{3}/g) ?? [] };
}

// Node raises a client error on a connection whose request it gives up on (headersTimeout, requestTimeout). On a
// request the app had answered already (a stalled body, answered at its time-out) the handler wrote a second answer on
// the connection, and it called a request whose headers stopped coming "malformed HTTP request".
test('a request time-out Node raises is answered once, saying so, and not at all once the app has answered', async (ctx) => {
  const app = createApp(ctx.server.services, { ready: true }, { requestTimeoutMs: 300, watchKeys: false });
  const server = createHttpServer(app);
  const serverSide: net.Socket[] = [];
  server.on('connection', (socket) => serverSide.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const timeout = () => Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
  try {
    const stalled = await rawConnection(port);
    stalled.socket.write(`POST /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.org.key}\r\n`
      + 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"Ann"');
    await eventually('the answer at the time-out', () => stalled.answers().length === 1, 5000);
    server.emit('clientError', timeout(), serverSide[0]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(stalled.answers(), ['HTTP/1.1 400'], stalled.received());

    const slow = await rawConnection(port);
    slow.socket.write('GET /v1/me HTTP/1.1\r\nHost: x\r\n');
    await eventually('the second connection', () => serverSide.length === 2, 5000);
    server.emit('clientError', timeout(), serverSide[1]);
    await eventually('the answer to headers that stopped coming', () => slow.received().includes('}}'), 5000);
    assert.equal(slow.answers(), ['HTTP/1.1 400']);
    const body = JSON.parse(slow.received().split('\r\n\r\n')[1]);
    assert.equal(body.error.details.fields, [{ field: 'request', message: 'the request did not arrive in full in time' }]);
    stalled.socket.destroy();
    slow.socket.destroy();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeApp(app);
  }
});

test.run();
