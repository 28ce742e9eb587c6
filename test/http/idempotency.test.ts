import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp; probe: ReturnType<typeof newProbe>; org: TestOrg }
const test = suite<Ctx>('Idempotency-Key on POST');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.probe = newProbe();
  ctx.app = await startApp(ctx.server.services, { extraRoutes: testRoutes(ctx.probe) });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

const post = (ctx: Ctx, path: string, body: unknown, key: string | undefined, apiKey = ctx.org.key) =>
  ctx.app.request('POST', path, { key: apiKey, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

test('a repeat with the same key and body returns the stored answer without running again', async (ctx) => {
  const first = await post(ctx, '/test/echo', { name: 'Ann', size: 1 }, 'replay-1');
  assert.is(first.status, 201);
  assert.is(first.headers.get('idempotent-replayed'), null);
  const calls = ctx.probe.calls.echo;
  // The same body with its fields in another order is the same request.
  const again = await post(ctx, '/test/echo', { size: 1, name: 'Ann' }, 'replay-1');
  assert.is(again.status, 201);
  assert.equal(again.body, first.body);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.is(again.headers.get('location'), first.headers.get('location'));
  assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(again.headers.get('x-request-id'));
  assert.is.not(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
  assert.ok(again.headers.get('x-ratelimit-remaining'));
  assert.is(ctx.probe.calls.echo, calls);
});

test('without the header every POST runs', async (ctx) => {
  const a = await post(ctx, '/test/echo', { name: 'Bo' }, undefined);
  const b = await post(ctx, '/test/echo', { name: 'Bo' }, undefined);
  assert.is(b.body.call, a.body.call + 1);
  assert.is.not(b.body.id, a.body.id);
});

test('the same key with a different body or path is 422 idempotency_key_reused', async (ctx) => {
  await post(ctx, '/test/echo', { name: 'Cy' }, 'reuse-1');
  const calls = ctx.probe.calls.echo;
  const otherBody = await post(ctx, '/test/echo', { name: 'Dee' }, 'reuse-1');
  assert.is(otherBody.status, 422);
  assert.is(otherBody.body.error.code, 'idempotency_key_reused');
  const otherPath = await post(ctx, '/test/slow', { name: 'Cy' }, 'reuse-1');
  assert.is(otherPath.status, 422);
  assert.is(ctx.probe.calls.echo, calls);
});

test('a 4xx answer is stored and replayed too', async (ctx) => {
  const first = await post(ctx, '/test/echo', { name: '' }, 'bad-1');
  assert.is(first.status, 400);
  const again = await post(ctx, '/test/echo', { name: '' }, 'bad-1');
  assert.is(again.status, 400);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body, first.body);
});

test('two truly concurrent requests with one key: one runs, the other is 409 idempotency_in_progress', async (ctx) => {
  const send = () => post(ctx, '/test/slow', { name: 'Eve' }, 'concurrent-1');
  const both = [send(), send()];
  // The one that did not get the claim answers while the other is held inside its handler.
  const refused = await Promise.race(both);
  assert.is(refused.status, 409);
  assert.is(refused.body.error.code, 'idempotency_in_progress');
  ctx.probe.release();
  const statuses = (await Promise.all(both)).map((r) => r.status).sort();
  assert.equal(statuses, [201, 409]);
  assert.is(ctx.probe.calls.slow, 1);
  const after = await send();
  assert.is(after.status, 201);
  assert.is(after.headers.get('idempotent-replayed'), 'true');
  assert.is(ctx.probe.calls.slow, 1);
});

test('5xx and 429 answers are not stored: the same key runs again', async (ctx) => {
  for (const [path, status] of [['/test/fail', 500], ['/test/busy', 429]] as const) {
    const name = path.slice(6);
    const first = await post(ctx, path, undefined, `again-${name}`);
    assert.is(first.status, status);
    const second = await post(ctx, path, undefined, `again-${name}`);
    assert.is(second.status, status);
    assert.is(second.headers.get('idempotent-replayed'), null);
    assert.is(ctx.probe.calls[name], 2);
  }
});

test('a key that is not 1-255 visible ASCII characters is 400 validation_error', async (ctx) => {
  for (const bad of ['', 'a b', 'x'.repeat(256), 'café', 'tab\there']) {
    const res = await post(ctx, '/test/echo', { name: 'F' }, bad);
    assert.is(res.status, 400, JSON.stringify(bad));
    assert.is(res.body.error.code, 'validation_error');
    assert.is(res.body.error.details.fields[0].field, 'Idempotency-Key');
  }
  const longest = await post(ctx, '/test/echo', { name: 'F' }, '~'.repeat(255));
  assert.is(longest.status, 201);
});

test('records are per API key: another key of the organisation may use the same value', async (ctx) => {
  const other = await ctx.server.newKey(ctx.org.organizationId, ['contacts:write']);
  const a = await post(ctx, '/test/echo', { name: 'G' }, 'per-key-1');
  const b = await post(ctx, '/test/echo', { name: 'G' }, 'per-key-1', other.key);
  assert.is(b.status, 201);
  assert.is(b.headers.get('idempotent-replayed'), null);
  assert.is.not(b.body.id, a.body.id);
});

test('after 24 hours a record expires: the key runs again, and expired records are purged', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const first = await post(ctx, '/test/echo', { name: 'H' }, 'old-1', org.key);
  const pool = ctx.server.services.pool;
  await pool.query(`UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE organization_id = $1`, [org.organizationId]);
  const again = await post(ctx, '/test/echo', { name: 'H' }, 'old-1', org.key);
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotent-replayed'), null);
  assert.is.not(again.body.id, first.body.id);
  // A record left from yesterday under another key value goes with the organisation's next purge.
  await pool.query(`UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE organization_id = $1`, [org.organizationId]);
  const fresh = await startApp(ctx.server.services, { extraRoutes: testRoutes(newProbe()) });
  try {
    await fresh.request('POST', '/test/echo', { key: org.key, body: { name: 'I' }, headers: { 'idempotency-key': 'new-1' } });
  } finally {
    await fresh.stop();
  }
  const { rows } = await pool.query('SELECT idempotency_key FROM idempotency_records WHERE organization_id = $1 ORDER BY 1', [org.organizationId]);
  assert.equal(rows.map((r) => r.idempotency_key), ['new-1']);
});

test('a stored answer is encrypted at rest: a new webhook\'s signing secret cannot be read from the records', async (ctx) => {
  const org = await ctx.server.newOrganization({ scopes: ['webhooks:write'] });
  const body = { url: 'https://example.com/at-rest', events: ['contact.created'] };
  const created = await post(ctx, '/webhooks', body, 'secret-1', org.key);
  assert.is(created.status, 201);
  const secret = created.body.secret as string;
  const rotated = await post(ctx, `/webhooks/${created.body.id}/rotate-secret`, undefined, 'secret-2', org.key);
  assert.is(rotated.status, 200);
  const { rows } = await ctx.server.services.pool.query<{ stored: string }>(
    'SELECT row_to_json(r)::text AS stored FROM idempotency_records r WHERE organization_id = $1', [org.organizationId]);
  assert.is(rows.length, 2);
  for (const { stored } of rows) {
    assert.not.ok(stored.includes(secret) || stored.includes(rotated.body.secret), 'a signing secret in plain text');
    assert.not.ok(stored.includes('at-rest'), 'the answer in plain text');
  }
  // The replays still answer what the first requests did.
  const again = await post(ctx, '/webhooks', body, 'secret-1', org.key);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body, created.body);
  const rotatedAgain = await post(ctx, `/webhooks/${created.body.id}/rotate-secret`, undefined, 'secret-2', org.key);
  assert.is(rotatedAgain.headers.get('idempotent-replayed'), 'true');
  assert.is(rotatedAgain.body.secret, rotated.body.secret);
});

/** A POST with no body at all: neither Content-Length nor Transfer-Encoding (as `curl -X POST` sends it). */
async function bareRequest(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(origin);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const lines = Object.entries({ host: `${hostname}:${port}`, connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
      socket.write(`POST /v1${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    let answer = '';
    socket.on('data', (chunk) => { answer += chunk.toString('utf8'); });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

test('a POST without a body, with an empty body and with {} is one request for its Idempotency-Key', async (ctx) => {
  const org = await ctx.server.newOrganization({ scopes: ['webhooks:write'] });
  const hook = await post(ctx, '/webhooks', { url: 'https://example.com/ping', events: ['contact.created'] }, undefined, org.key);
  const path = `/webhooks/${hook.body.id}/test`;
  const first = await bareRequest(ctx.app.origin, path, { authorization: `Bearer ${org.key}`, 'idempotency-key': 'ping-1' });
  assert.is(first.status, 202);
  // fetch sends the same bodiless POST with Content-Length: 0, a client's JSON helper as {}.
  for (const body of [undefined, {}]) {
    const again = await post(ctx, path, body, 'ping-1', org.key);
    assert.is(again.status, 202, JSON.stringify(again.body));
    assert.is(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body, first.body);
  }
});

/**
 * As a process killed (kill -9, a crash) between its request's change and the stored answer leaves the record: still
 * running, its claim as it was. Taken over after 2 minutes.
 */
async function claimLeftByDeadProcess(ctx: Ctx, org: TestOrg, key: string, claim?: string) {
  const { rowCount } = await ctx.server.services.pool.query(
    `UPDATE idempotency_records SET state = 'running', status = NULL, headers = NULL, body = NULL, created_at = now() - interval '3 minutes',
       claim = coalesce($3, claim)
     WHERE organization_id = $1 AND idempotency_key = $2`,
    [org.organizationId, key, claim ?? null],
  );
  assert.is(rowCount, 1);
}

const notesOf = async (ctx: Ctx, contactId: string) =>
  (await ctx.server.services.store.readStream(`contact-${contactId}`)).filter((e) => e.type === 'NoteAdded').length;

test('a claim left by a process that died after its change is not run again: 409 conflict, the note added once', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const contact = await post(ctx, '/contacts', { name: 'Crash' }, undefined, org.key);
  const path = `/contacts/${contact.body.id}/notes`;
  assert.is((await post(ctx, path, { text: 'called back' }, 'died-1', org.key)).status, 201);
  await claimLeftByDeadProcess(ctx, org, 'died-1');
  // Taken over, the request ran again: a second note (and a second contact, webhook, ping ...) for one request.
  const again = await ctx.app.request('POST', path, { key: org.key, body: { text: 'called back' }, headers: { 'idempotency-key': 'died-1', 'accept-language': 'en' } });
  assert.is(again.status, 409, JSON.stringify(again.body));
  assert.is(again.body.error.code, 'conflict');
  assert.match(again.body.error.message, /carried out/);
  assert.is(await notesOf(ctx, contact.body.id), 1);
  // The answer is stored: the next repeat replays it.
  const later = await post(ctx, path, { text: 'called back' }, 'died-1', org.key);
  assert.is(later.status, 409);
  assert.is(later.headers.get('idempotent-replayed'), 'true');
  assert.is(await notesOf(ctx, contact.body.id), 1);
});

test('a claim left by a process that died before its change runs again once taken over, and only after 2 minutes', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const contact = await post(ctx, '/contacts', { name: 'Early crash' }, undefined, org.key);
  const path = `/contacts/${contact.body.id}/notes`;
  assert.is((await post(ctx, path, { text: 'first' }, 'died-2', org.key)).status, 201);
  // A claim whose request appended nothing (another claim's token: no event carries it).
  await claimLeftByDeadProcess(ctx, org, 'died-2', 'a-claim-that-wrote-nothing');
  const again = await post(ctx, path, { text: 'first' }, 'died-2', org.key);
  assert.is(again.status, 201, JSON.stringify(again.body));
  assert.is(again.headers.get('idempotent-replayed'), null);
  assert.is(await notesOf(ctx, contact.body.id), 2);
  // A claim younger than 2 minutes is a request still running.
  await ctx.server.services.pool.query(`UPDATE idempotency_records SET state = 'running', created_at = now() - interval '1 minute' WHERE organization_id = $1`, [org.organizationId]);
  const running = await post(ctx, path, { text: 'first' }, 'died-2', org.key);
  assert.is(running.body.error.code, 'idempotency_in_progress');
});

test.run();
