import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { setupConversions, waitForDeliveries } from './support.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const test = suite<{ server: TestServer; sandbox: Sandbox }>('Deliveries: end to end through HTTP to the sandbox platform');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, DELIVERY_RETRY_SCHEDULE: '100ms,200ms,300ms' });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

const post = (server: TestServer, key: string, body: Record<string, unknown>) => server.request('POST', '/events', { key, body: { consent: true, status: 'won', ...body } });

test('an accepted delivery shows accepted with accepted_at, and the sandbox got the documented payload', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { eventName: 'Purchase', targets: [{ datasetId: '1001', mode: 'live' }] });
  const res = await post(server, s.key, {
    source: s.sourceId, external_id: 'order-1', email: '  Anna.Nowak@Example.COM ', phone: '+48 601-234-567', user_id: ' CUST-77 ',
    value: 199.99, currency: 'pln', content_ids: ['sku-1'], fbp: 'fb.1.1700000000.123', client_ip_address: '203.0.113.7',
  });
  assert.is(res.status, 202);
  assert.equal({ ...res.body, event_id: 'x' }, { event_id: 'x', deliveries_created: 1, duplicates: 0, sending_enabled: true });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'accepted');
  assert.is(delivery.attempts, 1);
  assert.ok(Date.parse(delivery.accepted_at) > 0);
  const [sent] = sandbox.received('1001').events as any[];
  assert.is(sent.event_name, 'Purchase');
  assert.is(sent.event_id, delivery.platform_event_id);
  assert.is(sent.action_source, 'system_generated');
  // The platform's normalisation: e-mail trimmed and lower-cased; phone digits with country code; external id trimmed, lower-cased.
  assert.equal(sent.user_data.em, [sha('anna.nowak@example.com')]);
  assert.equal(sent.user_data.ph, [sha('48601234567')]);
  assert.equal(sent.user_data.external_id, [sha('cust-77')]);
  assert.is(sent.user_data.fbp, 'fb.1.1700000000.123');
  assert.is(sent.user_data.client_ip_address, '203.0.113.7');
  assert.equal(sent.custom_data, { value: 199.99, currency: 'PLN', content_ids: ['sku-1'] });
  assert.is(sandbox.received('1001').batches[0].testEventCode, null);
});

test('a refused delivery fails with the platform\'s message in last_error, after one attempt', async ({ server, sandbox }) => {
  sandbox.setDatasetBehaviour('1002', { mode: 'refuse', refuseCode: 100, refuseMessage: 'Invalid parameter: pixel is disabled' });
  const s = await setupConversions(server, { targets: [{ datasetId: '1002', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'r-1', email: 'a@b.pl' });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  assert.is(delivery.attempts, 1);
  assert.match(delivery.last_error, 'Invalid parameter: pixel is disabled');
  const failed = (await server.services.store.readAll({ types: ['DeliveryFailed'] })).find((e) => (e.data as any).deliveryId === delivery.id);
  assert.equal((failed!.data as any).datasetId, '1002');
  assert.is(failed!.metadata.organizationId, s.organizationId);
});

test('a refusal whose message is only "Invalid parameter" shows the platform\'s explanation (error_user_msg) in last_error', async ({ server, sandbox }) => {
  // The Conversions API words a refused event as "Invalid parameter" and says what is wrong in error_user_msg.
  sandbox.injectFailures({
    match: '/1014/events', count: 1, status: 400, code: 100, subcode: 2804050, transient: false, message: 'Invalid parameter',
    userMessage: 'The parameter lead_id is not a valid lead for this dataset.',
  });
  const s = await setupConversions(server, { targets: [{ datasetId: '1014', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'um-1', email: 'a@b.pl' });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  assert.is(delivery.last_error, 'Invalid parameter: The parameter lead_id is not a valid lead for this dataset. (code 100, subcode 2804050)');
});

test('a refusal that quotes the access token keeps the token out of last_error and the event store', async ({ server, sandbox }) => {
  // The Graph API quotes a token it cannot parse; the fixture's targets carry EAAB-test-token-123.
  sandbox.setDatasetBehaviour('1012', { mode: 'refuse', refuseCode: 190, refuseMessage: 'Malformed access token EAAB-test-token-123' });
  const s = await setupConversions(server, { targets: [{ datasetId: '1012', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'tok-1', email: 'a@b.pl' });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  assert.is(delivery.last_error, 'Malformed access token [token] (code 190)');
  const stored = await server.services.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM es_events WHERE data::text LIKE '%EAAB-test-token-123%' OR metadata::text LIKE '%EAAB-test-token-123%'`);
  assert.is(stored.rows[0].n, '0');
});

test('a refusal whose message holds a NUL or a lone surrogate fails the delivery with that text made storable', async ({ server, sandbox }) => {
  sandbox.setDatasetBehaviour('1013', { mode: 'refuse', refuseCode: 100, refuseMessage: 'Invalid\u0000 parameter \ud800' });
  const s = await setupConversions(server, { targets: [{ datasetId: '1013', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'nul-1', email: 'a@b.pl' });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.equal([delivery.status, delivery.last_error], ['failed', 'Invalid parameter \ufffd (code 100)']);
});

test('the platform\'s 400 answers it says to wait and retry (rate limits 4, 17, 80004; 368 temporarily blocked) are retried, not failed', async ({ server, sandbox }) => {
  // The Graph API's error handling guide: 368 "Temporarily blocked for policies violations": wait and retry the operation.
  const s = await setupConversions(server, { targets: [{ datasetId: '1015', mode: 'live' }] });
  for (const [i, code] of [4, 17, 80004, 368].entries()) {
    sandbox.injectFailures({ match: '/1015/events', count: 1, status: 400, code, transient: false, message: `(#${code}) wait and retry` });
    const res = await post(server, s.key, { source: s.sourceId, external_id: `wait-${i}`, email: 'a@b.pl' });
    const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
    assert.equal([delivery.status, delivery.attempts], ['accepted', 2], `code ${code}`);
  }
});

test('a flaky dataset fails twice, then the delivery is accepted on attempt 3 with last_error empty again', async ({ server, sandbox }) => {
  sandbox.setDatasetBehaviour('1003', { mode: 'flaky', failures: 2 });
  const s = await setupConversions(server, { targets: [{ datasetId: '1003', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'f-1', email: 'a@b.pl' });
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'accepted');
  assert.is(delivery.attempts, 3);
  // The spec: last_error is 'Last error, empty when none'; an accepted delivery has none (as a finished job's error
  // and a webhook's last_error after a success), whatever its earlier attempts met.
  assert.is(delivery.last_error, '');
  assert.is(delivery.next_attempt_at, null);
  const listed = await server.request('GET', `/deliveries?event=${res.body.event_id}`, { key: s.key });
  assert.is(listed.body.data[0].last_error, '');
  assert.is(sandbox.received('1003').requests, 3);
  const types = (await server.services.store.readAll({ types: ['DeliveryRetryScheduled'] })).filter((e) => (e.data as any).deliveryId === delivery.id);
  assert.is(types.length, 2);
});

test('test mode carries test_event_code; live mode does not', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '1004', mode: 'test', testCode: 'TEST4711' }, { datasetId: '1005', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 't-1', email: 'a@b.pl' });
  assert.is(res.body.deliveries_created, 2);
  const deliveries = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.equal(deliveries.map((d) => [d.dataset_id, d.mode, d.status]).sort(), [['1004', 'test', 'accepted'], ['1005', 'live', 'accepted']]);
  assert.is(sandbox.received('1004').batches[0].testEventCode, 'TEST4711');
  assert.is(sandbox.received('1005').batches[0].testEventCode, null);
});

test('a shop event with page URL and browser agent goes as a website event', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { kind: 'shop', targets: [{ datasetId: '1006', mode: 'live' }] });
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'w-1', email: 'a@b.pl', event_source_url: 'https://shop.example/thanks', client_user_agent: 'Mozilla/5.0' });
  await waitForDeliveries(server, s.key, [res.body.event_id]);
  const [sent] = sandbox.received('1006').events as any[];
  assert.is(sent.action_source, 'website');
  assert.is(sent.event_source_url, 'https://shop.example/thanks');
});

test('customer data already hashed is sent as it is: a SHA-256 phone is taken like a SHA-256 e-mail', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '1007', mode: 'live' }] });
  const ph = sha('48601234567');
  const em = sha('anna@example.com');
  const res = await post(server, s.key, { source: s.sourceId, external_id: 'h-1', phone: ph.toUpperCase(), email: em });
  assert.is(res.status, 202, JSON.stringify(res.body));
  await waitForDeliveries(server, s.key, [res.body.event_id]);
  const [sent] = sandbox.received('1007').events as any[];
  assert.equal(sent.user_data.ph, [ph]);
  assert.equal(sent.user_data.em, [em]);
  // Anything else of that length is still no phone number.
  const long = await post(server, s.key, { source: s.sourceId, external_id: 'h-2', phone: '+48 601 234 567 000 000 000 000 000 000 000' });
  assert.is(long.status, 400);
  assert.is(long.body.error.code, 'validation_error');
});

test.run();
