import net from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_STATUS, type ErrorCode } from '../../commands/shared/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { MESSAGES, pickLanguage } from '../../src/http/messages.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp; org: TestOrg; logged: string[] }
const test = suite<Ctx>('Errors: one body, two languages, limits, and no leaks');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.logged = [];
  const out = new Writable({ write(chunk, _enc, done) { ctx.logged.push(String(chunk)); done(); } });
  const log = createLogger('error', {}, out);
  ctx.app = await startApp({ ...ctx.server.services, log }, { extraRoutes: testRoutes(newProbe()) });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

test('every code of the specification has a Polish and an English message', () => {
  const spec: ErrorCode[] = ['unauthorized', 'key_revoked', 'key_expired', 'insufficient_scope', 'rate_limited', 'invalid_json',
    'validation_error', 'invalid_cursor', 'not_found', 'route_not_found', 'conflict', 'contact_exists', 'contact_merged',
    'stage_conflict', 'event_conflict', 'source_paused', 'limit_reached', 'idempotency_in_progress', 'idempotency_key_reused',
    'payload_too_large', 'internal_error'];
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) assert.ok(spec.includes(code), code);
  for (const code of spec) {
    assert.ok(MESSAGES[code].pl.length > 5 && MESSAGES[code].en.length > 5, code);
    assert.is.not(MESSAGES[code].pl, MESSAGES[code].en, code);
  }
});

test('Accept-Language with quality values picks the language', () => {
  const cases: [string | undefined, 'pl' | 'en'][] = [
    [undefined, 'pl'], ['en', 'en'], ['en-GB,en;q=0.9', 'en'], ['EN-us', 'en'], ['pl', 'pl'], ['de-DE', 'pl'],
    ['pl;q=0.8, en;q=0.9', 'en'], ['en;q=0.5, pl', 'pl'], ['en;q=0', 'pl'], ['*', 'pl'], ['fr, en;q=0.1', 'en'],
    ['en ;q=0.9', 'en'], ['pl ;q=0.1 , en ; q=0.2', 'en'], ['en ; q=0.1, pl', 'pl'],
  ];
  for (const [header, expected] of cases) assert.is(pickLanguage(header), expected, String(header));
});

test('messages are Polish by default and English for en-GB,en;q=0.9; the code is the same in both', async (ctx) => {
  const pl = await ctx.app.request('GET', '/nowhere', { key: ctx.org.key });
  const en = await ctx.app.request('GET', '/nowhere', { key: ctx.org.key, headers: { 'accept-language': 'en-GB,en;q=0.9' } });
  assert.is(pl.status, 404);
  assert.is(en.status, 404);
  assert.equal(pl.body, { error: { code: 'route_not_found', message: MESSAGES.route_not_found.pl, details: { method: 'GET', path: '/v1/nowhere' } } });
  assert.is(en.body.error.code, 'route_not_found');
  assert.is(en.body.error.message, 'No such endpoint.');
  // Whitespace before the ';' of a weight is allowed (RFC 9110); it used to leave the tag 'en ' unrecognised.
  for (const header of ['en ;q=0.9', 'pl ; q=0.1, en ;q=0.5']) {
    const spaced = await ctx.app.request('GET', '/nowhere', { key: ctx.org.key, headers: { 'accept-language': header } });
    assert.is(spaced.body.error.message, 'No such endpoint.', header);
  }
  const unauth = await ctx.app.request('GET', '/me', { headers: { 'accept-language': 'en' } });
  assert.equal(unauth.body, { error: { code: 'unauthorized', message: MESSAGES.unauthorized.en } });
});

test('a wrong method on a known path is 404 route_not_found with Allow', async (ctx) => {
  const res = await ctx.app.request('DELETE', '/test/items', { key: ctx.org.key });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'route_not_found');
  assert.is(res.headers.get('allow'), 'GET, HEAD');
  const post = await ctx.app.request('PATCH', '/test/items/abc/rename', { key: ctx.org.key, body: {} });
  assert.is(post.headers.get('allow'), 'POST');
  const unknown = await ctx.app.request('GET', '/no/such/thing', { key: ctx.org.key });
  assert.is(unknown.headers.get('allow'), null);
  // The two paths outside /v1 are known paths too.
  for (const [method, path, allow] of [['POST', '/healthz', 'GET, HEAD'], ['PUT', '/platform/webhook', 'GET, POST, HEAD']]) {
    const res = await fetch(`${ctx.app.origin}${path}`, { method });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(((await res.json()) as { error: { code: string } }).error.code, 'route_not_found');
    assert.is(res.headers.get('allow'), allow, `${method} ${path}`);
  }
});

test('paths are case-sensitive: /V1/me or /v1/ME is 404 route_not_found, with a key or without, never a 500 past the key check', async (ctx) => {
  for (const path of ['/V1/me', '/V1/webhooks', '/V1/jobs/1', '/v1/ME', '/v1/Webhooks']) {
    for (const key of [ctx.org.key, undefined]) {
      const res = await fetch(`${ctx.server.origin}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      const body = await res.json();
      // Without a key, a path under /v1 is 401 first (as every /v1 path is); any other answer is 404.
      const expected = !key && path.startsWith('/v1/') ? [401, 'unauthorized'] : [404, 'route_not_found'];
      assert.equal([res.status, body.error.code], expected, `${path} ${key ? 'with' : 'without'} a key`);
      assert.is(res.headers.get('allow'), null, path);
    }
  }
});

test('a body over 64 KB is 413 payload_too_large, refused before it is parsed', async (ctx) => {
  const body = JSON.stringify({ name: 'x'.repeat(65 * 1024) });
  const res = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body });
  assert.is(res.status, 413);
  assert.is(res.body.error.code, 'payload_too_large');
  assert.is(res.body.error.details.limit_bytes, 64 * 1024);
  // Not JSON at all, and still refused for its size alone.
  const junk = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body: '{'.repeat(66 * 1024) });
  assert.is(junk.status, 413);
  // Just under the limit is read and judged on its content.
  const under = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body: JSON.stringify({ name: 'x'.repeat(60 * 1024) }) });
  assert.is(under.status, 400);
  assert.is(under.body.error.code, 'validation_error');
});

/** Sends `head` (and `body`, when given) on a raw socket and resolves with the first answer's head and body. */
async function firstAnswer(origin: string, head: string, body = ''): Promise<{ status: number; head: string; body: any; ms: number }> {
  const { hostname, port } = new URL(origin);
  const started = Date.now();
  const socket = net.connect(Number(port), hostname, () => socket.write(`${head}\r\n\r\n${body}`));
  try {
    const text = await new Promise<string>((resolve, reject) => {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
        const end = received.indexOf('\r\n\r\n');
        const length = Number(/^content-length: (\d+)/im.exec(received)?.[1] ?? NaN);
        if (end >= 0 && Buffer.byteLength(received.slice(end + 4)) >= length) resolve(received);
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`closed without an answer: ${received}`)));
    });
    const [answerHead, answerBody] = text.split('\r\n\r\n');
    return { status: Number(answerHead.split(' ')[1]), head: answerHead, body: JSON.parse(answerBody), ms: Date.now() - started };
  } finally {
    socket.destroy();
  }
}

// The body parser refused such a body at once but answered only once it had read the whole body off the wire: a
// client that sends its headers and waits (or whose Content-Length lies) got nothing until the request's time-out,
// then 500 internal_error saying the database did not answer.
test('a Content-Length over 64 KB is 413 at once, the body neither sent nor waited for', async (ctx) => {
  const head = (length: number) => [
    'POST /v1/test/echo HTTP/1.1', 'Host: x', `Authorization: Bearer ${ctx.org.key}`, 'Content-Type: application/json',
    `Content-Length: ${length}`,
  ].join('\r\n');
  for (const [sent, label] of [['', 'no body sent'], ['{"name":"' + 'x'.repeat(100), 'a part of it sent']] as const) {
    const res = await firstAnswer(ctx.app.origin, head(70_000), sent);
    assert.is(res.status, 413, label);
    assert.is(res.body.error.code, 'payload_too_large', label);
    assert.is(res.body.error.details.limit_bytes, 64 * 1024, label);
    assert.ok(res.ms < 3000, `${label}: answered after ${res.ms} ms`);
    assert.match(res.head, /^x-ratelimit-remaining: \d+$/im);
    assert.match(res.head, /^x-request-id: \S+$/im);
  }
});

// A chunked body has no Content-Length: it is refused once 64 KB of it have arrived, not once the client has sent the
// rest (the body parser read it all off the wire first, so a client that went on streaming waited for its answer).
test('a chunked body is 413 as soon as 64 KB of it have arrived, the rest not waited for', async (ctx) => {
  const head = ['POST /v1/test/echo HTTP/1.1', 'Host: x', `Authorization: Bearer ${ctx.org.key}`, 'Content-Type: application/json',
    'Transfer-Encoding: chunked'].join('\r\n');
  const part = `{"name":"${'x'.repeat(70_000)}`;
  const res = await firstAnswer(ctx.app.origin, head, `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
  assert.is(res.status, 413);
  assert.is(res.body.error.code, 'payload_too_large');
  assert.is(res.body.error.details.limit_bytes, 64 * 1024);
  assert.ok(res.ms < 3000, `answered after ${res.ms} ms`);
});

// Node answers an expectation other than 100-continue itself: 417 with no body, no X-Request-Id and no rate-limit
// headers. RFC 9110 (10.1.1) lets a server ignore it, so the request is served as any other.
test('an Expect header other than 100-continue is ignored: the request is answered as without it', async (ctx) => {
  for (const [path, status] of [['/v1/me', 200], ['/v1/nowhere', 404]] as const) {
    const res = await firstAnswer(ctx.server.origin, [`GET ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${ctx.org.key}`,
      'Expect: something-else', 'Connection: close'].join('\r\n'));
    assert.is(res.status, status, path);
    assert.match(res.head, /^x-request-id: \S+$/im);
    assert.match(res.head, /^x-ratelimit-remaining: \d+$/im);
  }
});

// Node answered these two itself: an HTTP/1.1 request without Host with an empty 400, CONNECT by closing the connection.
test('an HTTP/1.1 request without Host is 400 and CONNECT 404, both in the error body with the usual headers', async (ctx) => {
  const noHost = await firstAnswer(ctx.server.origin, ['GET /v1/me HTTP/1.1', `Authorization: Bearer ${ctx.org.key}`, 'Accept-Language: en'].join('\r\n'));
  assert.is(noHost.status, 400);
  assert.is(noHost.body.error.code, 'validation_error');
  assert.equal(noHost.body.error.details.fields, [{ field: 'Host', message: 'an HTTP/1.1 request needs a Host header' }]);
  assert.is(noHost.body.error.message, MESSAGES.validation_error.en);
  const connect = await firstAnswer(ctx.server.origin, ['CONNECT example.com:443 HTTP/1.1', 'Host: example.com:443'].join('\r\n'));
  assert.is(connect.status, 404);
  assert.is(connect.body.error.code, 'route_not_found');
  for (const res of [noHost, connect]) {
    assert.match(res.head, /^x-request-id: \S+$/im);
    assert.match(res.head, /^x-ratelimit-remaining: \d+$/im);
    assert.match(res.head, /^content-type: application\/json/im);
  }
  // HTTP/1.0 needs no Host.
  const old = await firstAnswer(ctx.server.origin, ['GET /v1/me HTTP/1.0', `Authorization: Bearer ${ctx.org.key}`].join('\r\n'));
  assert.is(old.status, 200);
});

test('a body that does not decompress by its Content-Encoding is 400 invalid_json, not a 500', async (ctx) => {
  const send = (encoding: string, body: Buffer | string) => fetch(`${ctx.app.origin}/v1/test/echo`, {
    method: 'POST', body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    headers: { authorization: `Bearer ${ctx.org.key}`, 'content-type': 'application/json', 'content-encoding': encoding },
  });
  const truncated = gzipSync(JSON.stringify({ name: 'cut short' })).subarray(0, 12);
  for (const [encoding, body] of [['gzip', '{"name":"plain"}'], ['deflate', '{"name":"plain"}'], ['br', '{"name":"plain"}'], ['gzip', truncated]] as const) {
    const res = await send(encoding, body);
    assert.is(res.status, 400, `${encoding}: ${res.status}`);
    assert.is(((await res.json()) as { error: { code: string } }).error.code, 'invalid_json', encoding);
  }
  // A body that is compressed as it says is read.
  const good = await send('gzip', gzipSync(JSON.stringify({ name: 'zipped' })));
  assert.is(good.status, 201);
});

test('a JSON body is read as UTF-8 whatever charset its Content-Type names (RFC 8259 defines none)', async (ctx) => {
  const send = (contentType: string, body: string) => fetch(`${ctx.app.origin}/v1/test/echo`, {
    method: 'POST', body, headers: { authorization: `Bearer ${ctx.org.key}`, 'content-type': contentType },
  });
  // utf8 (a common alias) and us-ascii were 400 invalid_json for a valid body; a charset naming another encoding
  // does not make the service read UTF-8 bytes in it.
  for (const type of ['application/json; charset=utf8', 'application/json;charset=us-ascii', 'application/json; charset="ISO-8859-1"',
    'application/json; charset=UTF-8', 'text/plain; charset=windows-1250']) {
    const res = await send(type, JSON.stringify({ name: 'Zażółć' }));
    assert.is(res.status, 201, type);
    assert.is(((await res.json()) as { name: string }).name, 'Zażółć', type);
  }
});

test('a body whose bytes are not UTF-8 is 400 invalid_json, not text with U+FFFD in it', async (ctx) => {
  const send = (body: Buffer, encoding?: string) => fetch(`${ctx.app.origin}/v1/test/echo`, {
    method: 'POST', body: new Blob([new Uint8Array(body)]),
    headers: { authorization: `Bearer ${ctx.org.key}`, 'content-type': 'application/json', 'accept-language': 'en', ...(encoding ? { 'content-encoding': encoding } : {}) },
  });
  const json = JSON.stringify({ name: 'Zażółć' });
  const bodies: [string, Buffer, string?][] = [
    ['Latin-2', Buffer.from(json.replace('ażółć', '\xb1\xbf\xf3\xb3\xe6'), 'latin1')],
    ['UTF-16', Buffer.from(`\ufeff${json}`, 'utf16le')],
    ['a cut sequence', Buffer.concat([Buffer.from('{"name":"Za'), Buffer.from([0xc5]), Buffer.from('"}')])],
    ['gzip of Latin-1', gzipSync(Buffer.from('{"name":"Caf\xe9"}', 'latin1')), 'gzip'],
  ];
  for (const [what, body, encoding] of bodies) {
    const res = await send(body, encoding);
    assert.is(res.status, 400, what);
    assert.equal(((await res.json()) as { error: unknown }).error, {
      code: 'invalid_json', message: MESSAGES.invalid_json.en, details: { expected: 'JSON text in UTF-8' },
    }, what);
  }
  const good = await send(Buffer.from(json));
  assert.is(good.status, 201);
  assert.is(((await good.json()) as { name: string }).name, 'Zażółć');
  // On a real endpoint: the conversion is not accepted, so no event is kept with U+FFFD in its external_id.
  const refused = await fetch(`${ctx.server.origin}/v1/events`, {
    method: 'POST', headers: { authorization: `Bearer ${ctx.org.key}` },
    body: new Blob([new Uint8Array(Buffer.from('{"source":"s","external_id":"caf\xe9","status":"paid","consent":true}', 'latin1'))]),
  });
  assert.is(refused.status, 400);
  assert.is(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_json');
});

test('malformed JSON and unknown fields are 400 invalid_json', async (ctx) => {
  for (const body of ['{"name": "a"', 'name=a', '"just a string"']) {
    const res = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body });
    assert.is(res.status, 400, body);
    assert.is(res.body.error.code, 'invalid_json', body);
  }
  const unknown = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body: { name: 'a', colour: 'red' } });
  assert.is(unknown.status, 400);
  assert.equal(unknown.body.error, { code: 'invalid_json', message: MESSAGES.invalid_json.pl, details: { unknown_fields: ['colour'] } });
});

test('bad values are 400 validation_error naming each field and why', async (ctx) => {
  const res = await ctx.app.request('POST', '/test/echo', { key: ctx.org.key, body: { name: '', size: -1.5 }, headers: { 'accept-language': 'en' } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'validation_error');
  const fields = new Set((res.body.error.details.fields as { field: string; message: string }[]).map((f) => f.field));
  assert.equal([...fields].sort(), ['name', 'size']);
  for (const f of res.body.error.details.fields) assert.ok(f.message.length > 3);
  assert.is(res.body.error.details.field, res.body.error.details.fields[0].field, 'the first field is named at the top too');
  const query = await ctx.app.request('GET', '/test/items?limit=0&colour=red', { key: ctx.org.key });
  assert.is(query.status, 400);
  assert.is(query.body.error.code, 'validation_error');
  assert.equal(query.body.error.details.fields.map((f: { field: string }) => f.field).sort(), ['colour', 'limit']);
});

test('an unexpected failure is 500 internal_error: the cause is logged, never shown', async (ctx) => {
  const res = await ctx.app.request('POST', '/test/fail', { key: ctx.org.key, headers: { 'x-request-id': 'fail-123' } });
  assert.is(res.status, 500);
  assert.equal(res.body, { error: { code: 'internal_error', message: MESSAGES.internal_error.pl } });
  assert.not.match(JSON.stringify(res.body), /secret|10\.0\.0\.7|stack/);
  const line = ctx.logged.map((l) => JSON.parse(l)).find((l) => l.requestId === 'fail-123');
  assert.ok(line, 'no log line for the failure');
  assert.match(JSON.stringify(line.error), /secret cause: connection to 10\.0\.0\.7 refused/);
});

test.run();
