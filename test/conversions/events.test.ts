import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { pauseSource } from '../../commands/source/handlers.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import type { ApiError } from '../../commands/shared/errors.ts';
import { setupConversions, recentIso, type Setup } from './support.ts';

// PLATFORM_SENDING=off: these tests look at what is queued and read back, not at sending.
const test = suite<{ server: TestServer; s: Setup }>('POST /events, GET /events, GET /deliveries');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.s = await setupConversions(ctx.server, { eventName: 'Lead', targets: [{ datasetId: '2001', mode: 'live' }, { datasetId: '2002', mode: 'test', testCode: 'T1' }] });
});
test.after(async (ctx) => { await ctx.server.stop(); });

const base = (s: Setup) => ({ source: s.sourceId, status: 'won', consent: true, email: 'jan@example.com' });
const post = (server: TestServer, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.request('POST', '/events', { key, body, headers: { 'accept-language': 'en', ...headers } });

test('queues one delivery per dataset of the active flows and reads back at once, without payload', async ({ server, s }) => {
  const res = await post(server, s.key, { ...base(s), external_id: 'crm-1', event_time: Math.floor(Date.now() / 1000) - 3600, value: 10, currency: 'EUR' });
  assert.is(res.status, 202);
  assert.is(res.body.deliveries_created, 2);
  assert.is(res.body.duplicates, 0);
  assert.is(res.body.sending_enabled, false);
  const event = await server.request('GET', `/events/${res.body.event_id}`, { key: s.key });
  assert.is(event.status, 200);
  assert.is(event.body.external_id, 'crm-1');
  assert.is(event.body.value, 10);
  assert.is(event.body.currency, 'EUR');
  assert.equal(event.body.deliveries.map((d: any) => [d.dataset_id, d.status, d.attempts, d.last_error]).sort(), [['2001', 'pending', 0, ''], ['2002', 'pending', 0, '']]);
  assert.not.ok(JSON.stringify(event.body).includes('jan@example.com'));
  assert.not.ok('payload' in event.body || 'email' in event.body);
});

test('plaintext e-mail and phone never reach the event store or the database', async ({ server, s }) => {
  await post(server, s.key, { ...base(s), external_id: 'crm-secret', email: 'Secret.Person@Example.com', phone: '+48 699 111 222' });
  const { rows } = await server.services.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM es_events WHERE data::text ILIKE '%secret.person%' OR data::text LIKE '%699111222%' OR data::text LIKE '%699 111 222%'`);
  assert.is(rows[0].n, '0');
  const queued = await server.services.pool.query<{ n: string }>(`SELECT count(*) AS n FROM delivery_queue WHERE payload::text ILIKE '%secret.person%'`);
  assert.is(queued.rows[0].n, '0');
});

test('the same event again is counted as duplicates; other content under its event_id is event_conflict', async ({ server, s }) => {
  const body = { ...base(s), external_id: 'crm-2' };
  const first = await post(server, s.key, body);
  const again = await post(server, s.key, body);
  assert.is(again.status, 202);
  assert.is(again.body.event_id, first.body.event_id);
  assert.is(again.body.deliveries_created, 0);
  assert.is(again.body.duplicates, 2);
  const conflict = await post(server, s.key, { ...body, email: 'other@example.com' });
  assert.is(conflict.status, 409);
  assert.is(conflict.body.error.code, 'event_conflict');
});

test('another event with the same platform event id for the same datasets creates no second delivery', async ({ server, s }) => {
  const other = await setupConversions(server, { eventName: 'Lead', targets: [{ datasetId: '2003', mode: 'live' }] });
  const first = await post(server, other.key, { ...base(other), status: 'won', external_id: 'x-1', event_id: 'shared-1' });
  assert.is(first.body.deliveries_created, 1);
  // The same platform event id from another source of the same organisation would reach the same dataset.
  const { createSource } = await import('../../commands/source/handlers.ts');
  const { createFlow } = await import('../../commands/flow/handlers.ts');
  const second = await createSource(server.services.store, { organizationId: other.organizationId, kind: 'shop', name: 'Shop' }, new Date());
  const flow = await createFlow(server.services.store, { sourceId: second.id, targetId: other.targets[0].id, eventName: 'Lead', trigger: { kind: 'status', status: 'won' } }, new Date());
  await server.services.waiter.waitFor(['setup'], flow.position, 10_000);
  const dup = await post(server, other.key, { ...base(other), source: second.id, external_id: 'x-2', event_id: 'shared-1' });
  assert.is(dup.status, 202);
  assert.is(dup.body.deliveries_created, 0);
  assert.is(dup.body.duplicates, 1);
});

test('conversions posted at the same moment: each distinct one is queued and readable at once, a repeated one queued once', async ({ server, s }) => {
  // Sent together, these go through the writer's group commit (one transaction for many conversions).
  const distinct = await Promise.all(Array.from({ length: 24 }, (_, i) => post(server, s.key, { ...base(s), external_id: `burst-${i}` })));
  assert.equal(distinct.map((r) => [r.status, r.body.deliveries_created, r.body.duplicates]), Array.from({ length: 24 }, () => [202, 2, 0]));
  const listed = await Promise.all(distinct.map((r) => server.request('GET', `/events/${r.body.event_id}`, { key: s.key })));
  assert.ok(listed.every((r) => r.status === 200 && r.body.deliveries.length === 2));
  // A member refused by a rule gets its own error; the others of its group are written.
  const mixed = await Promise.all([
    post(server, s.key, { ...base(s), external_id: 'burst-ok-1' }),
    post(server, s.key, { ...base(s), source: 'src_unknown', external_id: 'burst-bad-1' }),
    post(server, s.key, { ...base(s), external_id: 'burst-bad-2', phone: '12' }),
    post(server, s.key, { ...base(s), external_id: 'burst-ok-2' }),
  ]);
  assert.equal(mixed.map((r) => [r.status, r.body.error?.code]), [[202, undefined], [404, 'not_found'], [400, 'validation_error'], [202, undefined]]);
  assert.is(mixed[2].body.error.details.fields[0].field, 'phone');
  const same = await Promise.all(Array.from({ length: 12 }, () => post(server, s.key, { ...base(s), external_id: 'burst-same' })));
  assert.ok(same.every((r) => r.status === 202 && r.body.event_id === same[0].body.event_id));
  assert.is(same.filter((r) => r.body.deliveries_created === 2).length, 1, 'one of them queued the deliveries');
  assert.ok(same.every((r) => r.body.deliveries_created + r.body.duplicates === 2));
  const { rows } = await server.services.pool.query<{ n: string }>(`SELECT count(*) AS n FROM es_events WHERE stream_id = $1`, [`conversion-${same[0].body.event_id}`]);
  assert.is(rows[0].n, '1');
});

// Two of the same conversion in one group: the second was crowded out of its stream and, undone, gave back the
// first's claim of it too, so the first's stream kept its events without a revision and the next repeat of that
// conversion failed on the store's unique index: 500 internal_error instead of 202 with duplicates.
test('the same conversion twice at the same moment, then again: 202 every time, queued once', async ({ server }) => {
  // An organisation (and key) of its own: 36 requests would take the shared key over its rate limit.
  const s = await setupConversions(server, { eventName: 'Lead', targets: [{ datasetId: '2011', mode: 'live' }, { datasetId: '2012', mode: 'live' }] });
  const ids = Array.from({ length: 12 }, (_, i) => `pair-${i}`);
  const pairs = await Promise.all(ids.flatMap((id) => [post(server, s.key, { ...base(s), external_id: id }), post(server, s.key, { ...base(s), external_id: id })]));
  assert.equal(pairs.map((r) => r.status), pairs.map(() => 202), JSON.stringify(pairs.find((r) => r.status !== 202)?.body));
  const again = await Promise.all(ids.map((id) => post(server, s.key, { ...base(s), external_id: id })));
  assert.equal(again.map((r) => [r.status, r.body.deliveries_created, r.body.duplicates]), ids.map(() => [202, 0, 2]), JSON.stringify(again.find((r) => r.status !== 202)?.body));
  const { rows } = await server.services.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries_view WHERE event_id = ANY($1)', [again.map((r) => r.body.event_id)]);
  assert.is(rows[0].n, ids.length * 2);
});

test('the body rules of the specification', async ({ server, s }) => {
  const cases: [Record<string, unknown>, number, string, string?][] = [
    [{ consent: false }, 400, 'validation_error', 'consent'],
    [{ event_time: Math.floor(Date.now() / 1000) - 8 * 86400 }, 400, 'validation_error', 'event_time'],
    [{ event_time: new Date(Date.now() + 3600_000).toISOString() }, 400, 'validation_error', 'event_time'],
    [{ event_time: 'yesterday' }, 400, 'validation_error', 'event_time'],
    [{ value: 5 }, 400, 'validation_error', 'currency'],
    [{ value: 5, currency: 'XYZ' }, 400, 'validation_error', 'currency'],
    [{ external_id: 'x'.repeat(129) }, 400, 'validation_error', 'external_id'],
    [{ status: 's'.repeat(81) }, 400, 'validation_error', 'status'],
    [{ phone: 'call me' }, 400, 'validation_error', 'phone'],
    [{ client_ip_address: '999.1.1.1' }, 400, 'validation_error', 'client_ip_address'],
    [{ surprise: 1 }, 400, 'invalid_json'],
    [{ source: 'no-such-source' }, 404, 'not_found'],
  ];
  for (const [change, status, code, field] of cases) {
    const res = await post(server, s.key, { ...base(s), external_id: 'rule', ...change });
    assert.is(res.status, status, JSON.stringify(change));
    assert.is(res.body.error.code, code, JSON.stringify(change));
    if (field) assert.ok(JSON.stringify(res.body.error.details).includes(field), `${JSON.stringify(change)} -> ${JSON.stringify(res.body.error.details)}`);
  }
  const ok = await post(server, s.key, { ...base(s), external_id: 'iso-time', event_time: recentIso(120) });
  assert.is(ok.status, 202);
  // Only source, external_id, status and consent are required by the specification.
  const minimal = await post(server, s.key, { source: s.sourceId, external_id: 'minimal', status: 'won', consent: true });
  assert.is(minimal.status, 202, JSON.stringify(minimal.body));
});

test('external_id and status limits count characters: 128 emoji are an external_id, 129 are not; the filter takes it back', async ({ server, s }) => {
  const id = '😀'.repeat(128);
  const ok = await post(server, s.key, { ...base(s), external_id: id });
  assert.is(ok.status, 202, JSON.stringify(ok.body));
  const listed = await server.request('GET', `/events?external_id=${encodeURIComponent(id)}`, { key: s.key });
  assert.equal(listed.body.data.map((e: { id: string }) => e.id), [ok.body.event_id]);
  for (const change of [{ external_id: '😀'.repeat(129) }, { external_id: 'emoji-status', status: '😀'.repeat(81) }]) {
    const res = await post(server, s.key, { ...base(s), ...change });
    assert.is(res.status, 400, JSON.stringify(change).slice(0, 40));
    assert.is(res.body.error.code, 'validation_error');
  }
});

test('the other text fields count characters too, as the maxLength of the OpenAPI document: the limit in emoji is taken, one more is not', async ({ server }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '2009', mode: 'live' }] });
  const limits: [string, number][] = [['event_id', 128], ['user_id', 128], ['tracking_id', 128], ['fbp', 500], ['fbc', 500], ['client_user_agent', 1000]];
  for (const [field, max] of limits) {
    const ok = await post(server, s.key, { ...base(s), external_id: `emoji-${field}`, [field]: '😀'.repeat(max) });
    assert.is(ok.status, 202, `${field}: ${JSON.stringify(ok.body)}`);
    const over = await post(server, s.key, { ...base(s), external_id: `emoji-${field}-over`, [field]: '😀'.repeat(max + 1) });
    assert.is(over.status, 400, field);
    assert.is(over.body.error.details.field, field);
  }
  const ids = await post(server, s.key, { ...base(s), external_id: 'emoji-content', content_ids: ['😀'.repeat(128)] });
  assert.is(ids.status, 202, JSON.stringify(ids.body));
  const over = await post(server, s.key, { ...base(s), external_id: 'emoji-content-over', content_ids: ['😀'.repeat(129)] });
  assert.is(over.status, 400);
});

test('external_id and status are kept trimmed, and the list filters trim them too: the values as posted find the event', async ({ server }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '2010', mode: 'live' }] });
  const res = await post(server, s.key, { ...base(s), external_id: ' crm-trim ', status: 'won ' });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const listed = await server.request('GET', `/events?external_id=${encodeURIComponent(' crm-trim ')}&status=${encodeURIComponent('won ')}`, { key: s.key });
  assert.is(listed.status, 200);
  assert.equal(listed.body.data.map((e: { id: string; external_id: string; status: string }) => [e.id, e.external_id, e.status]), [[res.body.event_id, 'crm-trim', 'won']]);
});

test('an event_time that is neither Unix seconds nor a date-time (1.5, true) is refused naming both forms, not with "Invalid input"', async ({ server, s }) => {
  // A key of its own: the suite's key has the rate limit's 120 a minute to share.
  const { key } = await server.newKey(s.organizationId, ['events:write']);
  for (const eventTime of [Math.floor(Date.now() / 1000) - 0.5, true]) {
    const res = await post(server, key, { ...base(s), external_id: 'odd-time', event_time: eventTime });
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.details.fields, [{ field: 'event_time', message: 'Unix seconds (a whole number) or an ISO 8601 date-time' }], JSON.stringify(eventTime));
  }
});

// An integrator's usual slips were named in zod's words: Unix seconds in quotes and a local time without its offset
// 'Invalid ISO datetime', milliseconds 'Too big: expected number to be <=253402300799', a negative number 'Too small'.
test('event_time slips are named for what was sent: seconds in quotes, no offset, milliseconds, a negative number', async ({ server, s }) => {
  const { key } = await server.newKey(s.organizationId, ['events:write']);
  const hourAgo = new Date(Date.now() - 3600_000).toISOString();
  const cases: [unknown, string][] = [
    [String(Math.floor(Date.now() / 1000) - 60), 'Unix seconds go as a JSON number, not in quotes'],
    [hourAgo.slice(0, 19), 'an ISO 8601 date-time with its offset (Z or +02:00): without one its hour is unknown'],
    [hourAgo.slice(0, 16).replace('T', ' '), 'an ISO 8601 date-time with its offset (Z or +02:00): without one its hour is unknown'],
    [Date.now() - 60_000, 'not in the future (Unix seconds, not milliseconds)'],
    [-1, 'at most 7 days old'],
    ['yesterday', 'Unix seconds (a whole number) or an ISO 8601 date-time'],
    ['2026-02-30T10:00:00Z', 'Unix seconds (a whole number) or an ISO 8601 date-time'],
  ];
  for (const [eventTime, message] of cases) {
    const res = await post(server, key, { ...base(s), external_id: 'slip-time', event_time: eventTime });
    assert.is(res.status, 400, JSON.stringify([eventTime, res.body]));
    assert.equal(res.body.error.details.fields, [{ field: 'event_time', message }], JSON.stringify(eventTime));
  }
});

// A missing field was told 'Invalid input: expected string, received undefined' (zod's words; JSON has no undefined).
test('each required field left out is named as required; a wrong type is still named by its type', async ({ server, s }) => {
  const { key } = await server.newKey(s.organizationId, ['events:write']);
  const body = { ...base(s), external_id: 'required-fields' };
  for (const field of ['source', 'external_id', 'status', 'consent']) {
    const { [field]: _left, ...rest } = body as Record<string, unknown>;
    const res = await post(server, key, rest);
    assert.is(res.status, 400, field);
    assert.is(res.body.error.code, 'validation_error');
    assert.equal(res.body.error.details.fields, [{ field, message: 'required' }], field);
  }
  const wrong = await post(server, key, { ...body, consent: 'true' });
  assert.is(wrong.body.error.details.fields[0].field, 'consent');
  assert.match(wrong.body.error.details.fields[0].message, /boolean/);
});

test('a blank external_id or status filter is refused as a blank value is in the body, not answered with an empty page', async ({ server, s }) => {
  const { key } = await server.newKey(s.organizationId, ['events:read']);
  for (const [field, message] of [['external_id', '1-128 characters'], ['status', '1-80 characters']]) {
    for (const value of ['', '   ']) {
      const res = await server.request('GET', `/events?${field}=${encodeURIComponent(value)}`, { key, headers: { 'accept-language': 'en' } });
      assert.is(res.status, 400, JSON.stringify([field, value, res.body]));
      assert.is(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.details.fields, [{ field, message }], JSON.stringify([field, value]));
    }
  }
});

test('an empty or blank event_id counts as absent, as every optional text field does: the derived id, one event', async ({ server, s }) => {
  const body = { ...base(s), external_id: 'crm-no-event-id' };
  const derived = await post(server, s.key, body);
  assert.is(derived.status, 202, JSON.stringify(derived.body));
  for (const eventId of ['', '   ']) {
    const again = await post(server, s.key, { ...body, event_id: eventId });
    assert.is(again.status, 202, JSON.stringify([eventId, again.body]));
    assert.is(again.body.event_id, derived.body.event_id);
    assert.is(again.body.deliveries_created, 0);
  }
});

// The request reaches the service some milliseconds after the caller read its clock: an event_time of exactly
// 7 days ago (Unix seconds, as the platform counts them) was refused as more than 7 days old.
test('event_time exactly 7 days old in Unix seconds is taken; a second more is not', async ({ server, s }) => {
  // Early in a second, so the request is checked within the second the caller's clock read.
  while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 20));
  const sevenDaysAgo = Math.floor(Date.now() / 1000) - 7 * 86400;
  const exact = await post(server, s.key, { ...base(s), external_id: 'seven-days', event_time: sevenDaysAgo });
  assert.is(exact.status, 202, JSON.stringify(exact.body));
  const iso = await post(server, s.key, { ...base(s), external_id: 'seven-days-iso', event_time: new Date(sevenDaysAgo * 1000).toISOString() });
  assert.is(iso.status, 202, JSON.stringify(iso.body));
  const older = await post(server, s.key, { ...base(s), external_id: 'seven-days-and-a-second', event_time: sevenDaysAgo - 1 });
  assert.is(older.status, 400);
  assert.equal(older.body.error.details.fields, [{ field: 'event_time', message: 'at most 7 days old' }]);
});

test('event_time in the ISO 8601 forms integrators send: offsets without a colon, without minutes, times without seconds', async ({ server, s }) => {
  const at = new Date(Math.floor((Date.now() - 2 * 3600_000) / 60_000) * 60_000); // two hours ago, on a whole minute
  const pad = (n: number) => String(n).padStart(2, '0');
  // The same moment written in Warsaw-like +02:00 local time.
  const local = new Date(at.getTime() + 2 * 3600_000);
  const wall = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`;
  const forms = [`${wall}:00+0200`, `${wall}:00+02`, `${wall}+02:00`, `${at.toISOString().slice(0, 16)}Z`, `${wall.replace('T', ' ')}:00.000+02:00`];
  for (const [i, eventTime] of forms.entries()) {
    const res = await post(server, s.key, { ...base(s), external_id: `iso-form-${i}`, event_time: eventTime });
    assert.is(res.status, 202, `${eventTime}: ${JSON.stringify(res.body)}`);
    const got = await server.request('GET', `/events/${res.body.event_id}`, { key: s.key });
    assert.is(got.body.event_time, at.toISOString(), eventTime);
  }
  // Without any zone the hour is unknown: still refused.
  const zoneless = await post(server, s.key, { ...base(s), external_id: 'iso-zoneless', event_time: `${wall}:00` });
  assert.is(zoneless.status, 400);
  assert.is(zoneless.body.error.details.field, 'event_time');
});

// The OpenAPI document published the offset-with-colon date-time pattern for event_time, refusing there the forms
// (+0200, +02, no seconds, a space) the previous test shows the service takes.
test('event_time: the forms POST /events accepts are the ones the OpenAPI document\'s pattern allows', async ({ server }) => {
  const s = await setupConversions(server, { eventName: 'Lead', targets: [{ datasetId: '2013', mode: 'live' }] });
  const document = (await server.request('GET', '/openapi.json')).body;
  const schema = document.components.schemas.PostEventBody.properties.event_time.anyOf.find((b: { type?: string }) => b.type === 'string');
  assert.is(schema.format, 'date-time');
  const pattern = new RegExp(schema.pattern, 'u');
  const at = new Date(Date.now() - 3600_000).toISOString();
  const [day, time] = [at.slice(0, 10), at.slice(11, 19)];
  const accepted = [`${day}T${time}Z`, `${day}T${time}.123Z`, `${day}T${time}+00:00`, `${day}T${time}+0000`, `${day}T${time}+00`, `${day}T${time.slice(0, 5)}Z`, `${day} ${time}z`, `${day}t${time}Z`];
  const refused = [`${day}T${time}`, day, `${day}T${time} UTC`, 'yesterday', `${day}T${time.slice(0, 2)}Z`];
  for (const [i, value] of [...accepted, ...refused].entries()) {
    const res = await post(server, s.key, { ...base(s), external_id: `pattern-${i}`, event_time: value });
    assert.is(res.status, accepted.includes(value) ? 202 : 400, `${value}: ${JSON.stringify(res.body)}`);
    assert.is(pattern.test(value), accepted.includes(value), `${value} against ${schema.pattern}`);
  }
});

test('currency needs no value: the spec requires currency with value, not value with currency', async ({ server, s }) => {
  const res = await post(server, s.key, { ...base(s), external_id: 'currency-only', currency: 'pln' });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const got = await server.request('GET', `/events/${res.body.event_id}`, { key: s.key });
  assert.equal([got.body.value, got.body.currency], [null, 'PLN']);
});

// Node's currency list (ICU) leaves out codes of ISO 4217's current list, such as the bolívar digital (VED) and the
// Chilean UF (CLF): a value in them was 400 'an ISO 4217 code'. XTS and XXX (testing, no currency) stay refused.
test('currency takes every ISO 4217 code of money, also those Node\'s list leaves out', async ({ server }) => {
  // An organisation (and key) of its own: these requests would take the shared key over its rate limit.
  const s = await setupConversions(server, { eventName: 'Lead', targets: [{ datasetId: '2014', mode: 'live' }] });
  for (const code of ['VED', 'CLF', 'UYW', 'XAU', 'ved', 'USD', 'PLN']) {
    const res = await post(server, s.key, { ...base(s), external_id: `currency-${code}`, value: 10, currency: code });
    assert.is(res.status, 202, `${code}: ${JSON.stringify(res.body)}`);
    const event = await server.request('GET', `/events/${res.body.event_id}`, { key: s.key });
    assert.is(event.body.currency, code.toUpperCase());
  }
  for (const code of ['XYZ', 'XXX', 'XTS', 'US']) {
    const res = await post(server, s.key, { ...base(s), external_id: `currency-${code}`, value: 10, currency: code });
    assert.is(res.status, 400, code);
    assert.is(res.body.error.details.field, 'currency', code);
  }
});

test('value is required for Purchase', async ({ server }) => {
  const p = await setupConversions(server, { eventName: 'Purchase', status: 'paid', targets: [{ datasetId: '2004', mode: 'live' }] });
  const res = await post(server, p.key, { source: p.sourceId, status: 'paid', consent: true, email: 'a@b.pl', external_id: 'o-1' });
  assert.is(res.status, 400);
  assert.ok(JSON.stringify(res.body.error.details).includes('value'));
  const ok = await post(server, p.key, { source: p.sourceId, status: 'paid', consent: true, email: 'a@b.pl', external_id: 'o-1', value: 12.5, currency: 'PLN' });
  assert.is(ok.status, 202);
});

test('a paused source answers 409 source_paused; a status without flows queues nothing', async ({ server }) => {
  const p = await setupConversions(server, { targets: [{ datasetId: '2005', mode: 'live' }] });
  const none = await post(server, p.key, { ...base(p), status: 'lost', external_id: 'n-1' });
  assert.is(none.status, 202);
  assert.is(none.body.deliveries_created, 0);
  const paused = await pauseSource(server.services.store, p.sourceId, new Date());
  await server.services.waiter.waitFor(['setup'], paused!, 10_000);
  const res = await post(server, p.key, { ...base(p), external_id: 'p-1' });
  assert.is(res.status, 409);
  assert.is(res.body.error.code, 'source_paused');
});

test('a form source converts through lead stages only: POST /events names it as a validation_error', async ({ server, s }) => {
  const { createSource } = await import('../../commands/source/handlers.ts');
  const form = await createSource(server.services.store, { organizationId: s.organizationId, kind: 'form', name: 'Lead form', platformFormId: '770001' }, new Date());
  await server.services.waiter.waitFor(['setup'], form.position, 10_000);
  const res = await post(server, s.key, { ...base(s), source: form.id, external_id: 'via-form' });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(JSON.stringify(res.body.error.details).includes('source'), JSON.stringify(res.body.error.details));
});

test('lists filter and page; another organisation sees no event and no delivery', async ({ server, s }) => {
  for (let i = 0; i < 3; i++) await post(server, s.key, { ...base(s), external_id: 'paged', status: 'won', event_id: `page-${i}` });
  const first = await server.request('GET', '/events?external_id=paged&limit=2', { key: s.key });
  assert.is(first.body.data.length, 2);
  assert.ok(first.body.has_more);
  const second = await server.request('GET', `/events?external_id=paged&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: s.key });
  assert.is(second.body.data.length, 1);
  assert.is(second.body.has_more, false);
  const ids = [...first.body.data, ...second.body.data].map((e: any) => e.id);
  assert.is(new Set(ids).size, 3);
  const deliveries = await server.request('GET', `/deliveries?event=${ids[0]}&status=pending`, { key: s.key });
  assert.is(deliveries.body.data.length, 2);
  const byTarget = await server.request('GET', `/deliveries?target=${s.targets[0].id}&limit=100`, { key: s.key });
  assert.ok(byTarget.body.data.every((d: any) => d.target_id === s.targets[0].id));

  const stranger = await server.newOrganization();
  assert.is((await server.request('GET', '/events', { key: stranger.key })).body.data.length, 0);
  assert.is((await server.request('GET', '/deliveries', { key: stranger.key })).body.data.length, 0);
  assert.is((await server.request('GET', `/events/${ids[0]}`, { key: stranger.key })).status, 404);
  const foreign = await post(server, stranger.key, { ...base(s), external_id: 'steal' });
  assert.is(foreign.status, 404);
  const cursor = await server.request('GET', `/events?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: stranger.key });
  assert.is(cursor.body.error.code, 'invalid_cursor');
});

test('without events:read a key cannot list; without events:write it cannot post', async ({ server, s }) => {
  const { key } = await server.newKey(s.organizationId, ['contacts:read']);
  assert.is((await server.request('GET', '/events', { key })).status, 403);
  assert.is((await post(server, key, { ...base(s), external_id: 'scope' })).status, 403);
});

test('a dataset connection takes any access token without spaces and any plain dataset id; without a test code it is live', async ({ server }) => {
  const org = await server.newOrganization();
  const { store, secrets, pool } = server.services;
  const make = (token: string, datasetId = '3001') =>
    createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId, token }, new Date());
  const made = await make('abc', 'ds-3001');
  await server.services.waiter.waitFor(['setup'], made.position, 10_000);
  const { rows } = await pool.query('SELECT dataset_id, mode, test_code FROM targets WHERE organization_id = $1 AND id = $2', [org.organizationId, made.id]);
  assert.equal(rows, [{ dataset_id: 'ds-3001', mode: 'live', test_code: null }]);
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: ApiError) => ({ code: e.code, field: (e.details?.fields as { field: string }[])[0].field }));
  for (const token of ['', '   ', 'two words']) assert.equal(await refusal(make(token)), { code: 'validation_error', field: 'token' }, JSON.stringify(token));
  for (const datasetId of ['', '12/34', '1'.repeat(65)]) assert.equal(await refusal(make('abc', datasetId)), { code: 'validation_error', field: 'dataset' }, datasetId);
});

test.run();
