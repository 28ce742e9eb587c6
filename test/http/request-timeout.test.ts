// A request whose handler is still running at the bound is answered 500 internal_error by its timer; what the
// handler answers or throws later is dropped: no second answer on the connection, no crash, no error logged.
import net from 'node:net';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createLogger } from '../../src/logger.ts';
import { defineRoute } from '../../src/http/route.ts';
import { TIMED_OUT } from '../../src/http/messages.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { startApp, type ExtraApp } from './support/app.ts';

const BOUND_MS = 300;

/** The late route waits until the test opens the gate; then it answers 201, or fails when asked to. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}
let current = gate();
let calls = 0;
const Late = z.object({ name: z.string(), fail: z.boolean().optional() }).strict();
const late = defineRoute({
  method: 'post', path: '/test/late', scope: null, summary: 'Answers when the test lets it', tag: 'Test',
  body: Late, success: { status: 201, schema: z.object({ name: z.string(), call: z.number() }), description: 'Done' }, errors: [],
  handler: async ({ body }) => {
    const call = ++calls;
    await current.opened;
    if (body.fail) throw new Error('late failure');
    return { status: 201, body: { name: body.name, call }, headers: { Location: `/v1/test/late/${call}` } };
  },
});

interface Ctx { server: TestServer; app: ExtraApp; org: TestOrg; logged: string[] }
const test = suite<Ctx>('Request time-out: a handler still running at the bound is answered 500, its late answer dropped');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.logged = [];
  const lines = new Writable({ write(chunk, _encoding, done) { ctx.logged.push(...String(chunk).trim().split('\n')); done(); } });
  const services = { ...ctx.server.services, log: createLogger('debug', {}, lines) };
  ctx.app = await startApp(services, { extraRoutes: [late], requestTimeoutMs: BOUND_MS });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { current.open(); await ctx.app.stop(); await ctx.server.stop(); });
test.before.each(() => { current = gate(); calls = 0; });

const count = (ctx: Ctx, msg: string) => ctx.logged.filter((line) => line.includes(`"msg":"${msg}"`)).length;

/** Raw HTTP/1.1 on one keep-alive connection, to see every byte the server sends on it. */
async function connection(origin: string) {
  const { hostname, port } = new URL(origin);
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk) => { received += chunk.toString(); });
  return {
    socket,
    received: () => received,
    // A status line starts every answer (after the previous body, which ends with no newline).
    answers: () => received.match(/HTTP\/1\.1 \d{3}/g) ?? [],
    send(method: string, path: string, key: string, body?: unknown) {
      const text = body === undefined ? '' : JSON.stringify(body);
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    },
  };
}

test('500 internal_error at the bound; the late answer is not sent, and the connection serves the next request', async (ctx) => {
  const conn = await connection(ctx.app.origin);
  const started = Date.now();
  conn.send('POST', '/v1/test/late', ctx.org.key, { name: 'Ann' });
  await eventually('the time-out answer', () => conn.answers().length === 1, 5000);
  const took = Date.now() - started;
  assert.ok(took >= BOUND_MS - 20 && took < BOUND_MS + 1000, `answered after ${took} ms`);
  assert.match(conn.received(), /^HTTP\/1\.1 500 /);
  assert.ok(conn.received().includes('"code":"internal_error"'));
  assert.ok(conn.received().includes(JSON.stringify(TIMED_OUT.pl)));
  assert.not.match(conn.received(), /^Location:/im);
  assert.is(calls, 1);

  current.open();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(conn.answers().length, 1, conn.received());
  conn.send('GET', '/v1/me', ctx.org.key);
  await eventually('the next answer on the connection', () => conn.answers().length === 2, 5000);
  assert.match(conn.answers()[1], /200$/);
  conn.socket.destroy();
  assert.is(count(ctx, 'request timed out'), 1);
  assert.is(count(ctx, 'answer after the request timed out dropped'), 1);
  assert.is(count(ctx, 'unexpected error'), 0, ctx.logged.join('\n'));
});

test('a handler failing after the bound: nothing sent, no error logged (one debug line)', async (ctx) => {
  const before = ctx.logged.length;
  const res = await ctx.app.request('POST', '/test/late', { key: ctx.org.key, body: { name: 'Bo', fail: true } });
  assert.is(res.status, 500);
  assert.is(res.body.error.code, 'internal_error');
  current.open();
  await eventually('the late failure', () => count(ctx, 'failure after the request timed out') === 1, 5000);
  const lines = ctx.logged.slice(before);
  assert.ok(!lines.some((line) => line.includes('"level":"error"') && !line.includes('"msg":"request timed out"')), lines.join('\n'));
});

test('with an Idempotency-Key: 409 while the late handler runs, then its real answer replayed, run once', async (ctx) => {
  const send = () => ctx.app.request('POST', '/test/late', { key: ctx.org.key, body: { name: 'Cy' }, headers: { 'idempotency-key': 'late-1' } });
  const first = await send();
  assert.is(first.status, 500);
  const during = await send();
  assert.is(during.status, 409);
  assert.is(during.body.error.code, 'idempotency_in_progress');
  current.open();
  const replayed = await eventually('the stored answer', async () => {
    const res = await send();
    return res.status === 409 ? null : res;
  }, 5000);
  assert.is(replayed.status, 201);
  assert.is(replayed.headers.get('idempotent-replayed'), 'true');
  assert.equal(replayed.body, { name: 'Cy', call: 1 });
  assert.is(replayed.headers.get('location'), '/v1/test/late/1');
  assert.is(calls, 1);
});

// A client that announces a body and does not send all of it held the body parser until the bound, which answered as
// for a database that stopped answering: 500 internal_error, "the outcome of the request is unknown". Nothing ran.
test('a body not sent in full by the bound is 400 invalid_json saying so, not a 500 blaming the database', async (ctx) => {
  const conn = await connection(ctx.app.origin);
  const started = Date.now();
  conn.socket.write(`POST /v1/test/late HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.org.key}\r\nContent-Type: application/json\r\n`
    + 'Content-Length: 1000\r\n\r\n{"name":"Ann"');
  await eventually('the answer at the bound', () => conn.answers().length === 1, 5000);
  const took = Date.now() - started;
  assert.ok(took >= BOUND_MS - 20 && took < BOUND_MS + 1000, `answered after ${took} ms`);
  assert.match(conn.received(), /^HTTP\/1\.1 400 /);
  const body = JSON.parse(conn.received().split('\r\n\r\n')[1]);
  assert.is(body.error.code, 'invalid_json');
  assert.match(body.error.details.expected, /1000 bytes/);
  assert.not.ok(conn.received().includes(JSON.stringify(TIMED_OUT.pl)));
  assert.match(conn.received(), /^x-ratelimit-remaining: \d+$/im);
  assert.is(calls, 0);
  conn.socket.destroy();
});

test.run();
