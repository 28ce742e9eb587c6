import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { decryptSecret } from '../../src/webhooks/signature.ts';
import { ALL_TYPES, subscribe } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver } from './support/receiver.ts';

const test = suite<{ server: TestServer }>('Webhooks: subscriptions API');
test.before(async (ctx) => { ctx.server = await startTestServer(); });
test.after(async (ctx) => { await ctx.server.stop(); });

const HOOK = 'http://127.0.0.1:9/hook';

test('create answers 201 with a whsec_ secret once; reads never show it; the store holds it only encrypted', async ({ server }) => {
  const org = await server.newOrganization();
  const created = await subscribe(server, org, HOOK, ['lead.created', 'contact.created', 'lead.created'], 'CRM');
  assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  // Repeats are dropped; the order is the caller's.
  assert.equal(created.events, ['lead.created', 'contact.created']);
  assert.equal({ ...created, id: undefined, secret: undefined, created_at: undefined, updated_at: undefined }, {
    id: undefined, url: HOOK, description: 'CRM', events: ['lead.created', 'contact.created'], active: true, last_status: 0, last_error: '',
    last_delivery_at: null, consecutive_failures: 0, secret: undefined, created_at: undefined, updated_at: undefined,
  });
  const got = await server.request('GET', `/webhooks/${created.id}`, { key: org.key });
  assert.is(got.status, 200);
  assert.not.ok('secret' in got.body);
  const list = await server.request('GET', '/webhooks', { key: org.key });
  assert.equal(list.body.data.map((w: { id: string }) => w.id), [created.id]);
  assert.not.ok(JSON.stringify(list.body).includes(created.secret));
  const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM es_events WHERE data::text LIKE $1', [`%${created.secret}%`]);
  assert.is(Number(rows[0].n), 0);
  const [event] = await server.services.store.readStream(`webhook-${created.id}`);
  const sealed = (event.data as { secretCiphertext: string }).secretCiphertext;
  assert.is(decryptSecret(sealed, server.services.secrets.encryptionKey), created.secret);
});

test('bad bodies: 400 validation_error or invalid_json, naming the field', async ({ server }) => {
  const org = await server.newOrganization();
  const cases: [unknown, string][] = [
    [{ url: HOOK, events: [] }, 'validation_error'],
    [{ url: HOOK, events: ['contact.deleted'] }, 'validation_error'],
    [{ url: HOOK, events: ['ping'] }, 'validation_error'],
    [{ url: `http://127.0.0.1/${'a'.repeat(2000)}`, events: ALL_TYPES }, 'validation_error'],
    [{ url: HOOK, events: ALL_TYPES, description: 'x'.repeat(201) }, 'validation_error'],
    [{ url: HOOK, events: ALL_TYPES, description: '😀'.repeat(201) }, 'validation_error'],
    [{ url: 'not a url', events: ALL_TYPES }, 'validation_error'],
    [{ url: HOOK, events: ALL_TYPES, secret: 'mine' }, 'invalid_json'],
  ];
  for (const [body, code] of cases) {
    const res = await server.request('POST', '/webhooks', { key: org.key, body });
    assert.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.is(res.body.error.code, code, JSON.stringify(body).slice(0, 80));
  }
  const list = await server.request('GET', '/webhooks', { key: org.key });
  assert.equal(list.body.data, []);
  // Characters, not UTF-16 units: 200 emoji are a description.
  const emoji = await server.request('POST', '/webhooks', { key: org.key, body: { url: HOOK, events: ALL_TYPES, description: '😀'.repeat(200) } });
  assert.is(emoji.status, 201, JSON.stringify(emoji.body).slice(0, 200));
  // And 2000 characters are a url, an emoji among them (2001 UTF-16 units).
  const longUrl = `${HOOK}/😀`.padEnd(2001, 'a');
  const long = await server.request('POST', '/webhooks', { key: org.key, body: { url: longUrl, events: ALL_TYPES } });
  assert.is(long.status, 201, JSON.stringify(long.body).slice(0, 200));
  assert.is(long.body.url, longUrl);
});

test('PATCH changes fields, pauses and resumes; an empty or unknown body is refused', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  const changed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { url: 'http://127.0.0.1:10/other', events: ['delivery.failed'], description: 'ops' } });
  assert.is(changed.status, 200);
  assert.equal([changed.body.url, changed.body.events, changed.body.description, changed.body.active], ['http://127.0.0.1:10/other', ['delivery.failed'], 'ops', true]);
  const paused = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: false } });
  assert.is(paused.body.active, false);
  const resumed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  assert.is(resumed.body.active, true);
  const types = (await server.services.store.readStream(`webhook-${hook.id}`)).map((e) => e.type);
  assert.equal(types, ['WebhookCreated', 'WebhookUpdated', 'WebhookPaused', 'WebhookResumed']);
  const reordered = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { events: ['delivery.failed', 'contact.created', 'delivery.failed'] } });
  assert.equal(reordered.body.events, ['delivery.failed', 'contact.created']);
  assert.equal((await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body.events, ['delivery.failed', 'contact.created']);
  assert.is((await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: {} })).body.error.code, 'validation_error');
  assert.is((await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { secret: 'x' } })).body.error.code, 'invalid_json');
});

test('active true resets consecutive_failures also on a subscription still active (failing, below the automatic pause)', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  const failing = await eventually('failed attempts', async () => {
    const w = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
    return w.consecutive_failures >= 2 && w;
  });
  assert.is(failing.active, true);
  const resumed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  assert.is(resumed.status, 200);
  assert.is(resumed.body.active, true);
  // The ping keeps failing (nothing listens there), so an attempt may land right after the reset.
  assert.ok(resumed.body.consecutive_failures < failing.consecutive_failures, `${resumed.body.consecutive_failures} after the reset`);
});

test('a slow attempt\'s result is a change at the time it is recorded: updated_at is not its start, so updated_since finds it', async ({ server }) => {
  const org = await server.newOrganization();
  const slow = await startReceiver((_push, res) => { setTimeout(() => res.writeHead(204).end(), 1500); });
  try {
    const hook = await subscribe(server, org, slow.url());
    assert.is((await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key })).status, 202);
    const attempt = await eventually('the attempt record', async () =>
      (await server.request('GET', `/webhooks/${hook.id}/deliveries`, { key: org.key })).body.data[0]);
    // created_at and duration_ms are each rounded to the millisecond, so their sum may pass the answer by one or two.
    const answered = new Date(Date.parse(attempt.created_at) + attempt.duration_ms - 2).toISOString();
    const got = await server.request('GET', `/webhooks/${hook.id}`, { key: org.key });
    assert.is(got.body.last_status, 204);
    assert.ok(got.body.updated_at >= answered, `updated_at ${got.body.updated_at} is before the answer came (${answered})`);
    // A client that started its sync while the attempt was under way lists with that time and sees the new result.
    const since = await server.request('GET', `/webhooks?updated_since=${encodeURIComponent(answered)}`, { key: org.key });
    assert.equal(since.body.data.map((w: { id: string }) => w.id), [hook.id]);
  } finally {
    await slow.close();
  }
});

test('DELETE answers 204 with no body; afterwards the webhook is 404 everywhere and frees its place', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  const deleted = await server.request('DELETE', `/webhooks/${hook.id}`, { key: org.key });
  assert.is(deleted.status, 204);
  assert.is(deleted.body, undefined);
  for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/test'], ['POST', '/rotate-secret'], ['GET', '/deliveries']]) {
    const res = await server.request(method, `/webhooks/${hook.id}${path}`, { key: org.key, body: method === 'PATCH' ? { active: false } : undefined });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
  assert.equal((await server.request('GET', '/webhooks', { key: org.key })).body.data, []);
});

test('DELETE takes no body: none or {} deletes, a field in it is 400 invalid_json and the webhook stays', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  const refused = await server.request('DELETE', `/webhooks/${hook.id}`, { key: org.key, body: { active: false } });
  assert.is(refused.status, 400);
  assert.is(refused.body.error.code, 'invalid_json');
  assert.equal(refused.body.error.details, { unknown_fields: ['active'] });
  assert.is((await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).status, 200, 'the refused DELETE kept the webhook');
  assert.is((await server.request('DELETE', `/webhooks/${hook.id}`, { key: org.key, body: {} })).status, 204);
  const other = await subscribe(server, org, HOOK);
  assert.is((await server.request('DELETE', `/webhooks/${other.id}`, { key: org.key, body: 'x'.repeat(70_000) })).status, 413, '413 still applies');
  assert.is((await server.request('DELETE', `/webhooks/${other.id}`, { key: org.key })).status, 204);
});

test('rotate-secret answers the new secret at once and only then', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  const rotated = await server.request('POST', `/webhooks/${hook.id}/rotate-secret`, { key: org.key });
  assert.is(rotated.status, 200);
  assert.match(rotated.body.secret, /^whsec_/);
  assert.is.not(rotated.body.secret, hook.secret);
  const { rows } = await server.services.pool.query<{ secret_ciphertext: string }>(
    'SELECT secret_ciphertext FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2', [org.organizationId, hook.id]);
  assert.is(decryptSecret(rows[0].secret_ciphertext, server.services.secrets.encryptionKey), rotated.body.secret);
});

test('test and rotate-secret take no body: none or {} is fine; a field in it, or a body over 64 KB, is 400 invalid_json and changes nothing', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, HOOK);
  const sealed = async () => (await server.services.pool.query<{ secret_ciphertext: string }>(
    'SELECT secret_ciphertext FROM webhook_subscriptions WHERE organization_id = $1 AND id = $2', [org.organizationId, hook.id])).rows[0].secret_ciphertext;
  const before = await sealed();
  for (const action of ['test', 'rotate-secret']) {
    const path = `/webhooks/${hook.id}/${action}`;
    const refused = await server.request('POST', path, { key: org.key, body: { url: 'https://example.com/other' } });
    assert.is(refused.status, 400, action);
    assert.is(refused.body.error.code, 'invalid_json', action);
    assert.equal(refused.body.error.details, { unknown_fields: ['url'] }, action);
  }
  // Nor 413: the spec keeps payload_too_large off these two endpoints; a body that large is not {} either.
  const large = JSON.stringify({ note: 'x'.repeat(70 * 1024) });
  for (const action of ['test', 'rotate-secret']) {
    const refused = await server.request('POST', `/webhooks/${hook.id}/${action}`, { key: org.key, body: large });
    assert.is(refused.status, 400, action);
    assert.is(refused.body.error.code, 'invalid_json', action);
  }
  assert.is(await sealed(), before, 'the refused rotate kept the secret');
  for (const body of [{}, undefined]) {
    assert.is((await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key, body })).status, 202);
    assert.is((await server.request('POST', `/webhooks/${hook.id}/rotate-secret`, { key: org.key, body })).status, 200);
  }
});

test('10 webhooks per organisation: 20 concurrent creates make exactly 10, the rest are 409 limit_reached', async ({ server }) => {
  const org = await server.newOrganization();
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => server.request('POST', '/webhooks', { key: org.key, body: { url: `${HOOK}${i}`, events: ALL_TYPES } })));
  const statuses = answers.map((a) => a.status).sort();
  assert.equal(statuses, [...Array(10).fill(201), ...Array(10).fill(409)]);
  for (const a of answers.filter((x) => x.status === 409)) assert.is(a.body.error.code, 'limit_reached');
  const list = await server.request('GET', '/webhooks?limit=100', { key: org.key });
  assert.is(list.body.data.length, 10);
  const other = await server.newOrganization();
  assert.is((await server.request('POST', '/webhooks', { key: other.key, body: { url: HOOK, events: ALL_TYPES } })).status, 201);
  await server.request('DELETE', `/webhooks/${list.body.data[0].id}`, { key: org.key });
  assert.is((await server.request('POST', '/webhooks', { key: org.key, body: { url: HOOK, events: ALL_TYPES } })).status, 201);
});

test('40 PATCHes, secret rotations and test pings of one webhook at once: every one answers its success, none 500', async ({ server }) => {
  const org = await server.newOrganization();
  const created = await subscribe(server, org, HOOK, ALL_TYPES);
  const { key } = await server.newKey(org.organizationId, ['webhooks:write']);
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
    i % 3 === 0 ? server.request('PATCH', `/webhooks/${created.id}`, { key, body: { description: `d${i}` } })
      : i % 3 === 1 ? server.request('POST', `/webhooks/${created.id}/rotate-secret`, { key })
        : server.request('POST', `/webhooks/${created.id}/test`, { key })));
  assert.equal(answers.map((a) => a.status), answers.map((_, i) => (i % 3 === 2 ? 202 : 200)));
});

test('another organisation sees, changes, tests and deletes nothing', async ({ server }) => {
  const owner = await server.newOrganization();
  const stranger = await server.newOrganization();
  const hook = await subscribe(server, owner, HOOK);
  assert.equal((await server.request('GET', '/webhooks', { key: stranger.key })).body.data, []);
  for (const [method, path, body] of [['GET', '', undefined], ['PATCH', '', { active: false }], ['POST', '/test', undefined], ['POST', '/rotate-secret', undefined],
    ['GET', '/deliveries', undefined], ['DELETE', '', undefined]] as const) {
    const res = await server.request(method, `/webhooks/${hook.id}${path}`, { key: stranger.key, body });
    assert.is(res.status, 404, `${method} ${path}`);
  }
  const mine = await server.request('GET', `/webhooks/${hook.id}`, { key: owner.key });
  assert.equal([mine.status, mine.body.active], [200, true]);
  assert.is((await server.services.store.readStream(`webhook-${hook.id}`)).length, 1);
});

test('scopes: webhooks:read lists but cannot write', async ({ server }) => {
  const org = await server.newOrganization({ scopes: ['webhooks:read'] });
  assert.is((await server.request('GET', '/webhooks', { key: org.key })).status, 200);
  const res = await server.request('POST', '/webhooks', { key: org.key, body: { url: HOOK, events: ALL_TYPES } });
  assert.equal([res.status, res.body.error.code, res.body.error.details?.required_scope], [403, 'insufficient_scope', 'webhooks:write']);
});

test.run();
