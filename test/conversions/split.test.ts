import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../../src/processes/deliveries/worker.ts';
import { MAX_AGE_MS } from '../../commands/conversion/validate.ts';
import { acceptConversion } from '../../commands/conversion/handlers.ts';
import { setupConversions, waitForDeliveries, waitForQueued, type Setup } from './support.ts';

// The server only queues; each test runs one worker claim by hand, so the whole queue goes out as one batch.
const test = suite<{ server: TestServer; sandbox: Sandbox }>('Deliveries: a refused batch is split; an event too old is cancelled unsent');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off', PLATFORM_API_URL: ctx.sandbox.url });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

async function queue(server: TestServer, s: Setup, events: { id: string; eventTime?: string }[]): Promise<string[]> {
  const ids: string[] = [];
  for (const e of events) {
    const body = { source: s.sourceId, status: 'won', consent: true, external_id: e.id, event_id: e.id, email: `${e.id}@example.com`, event_time: e.eventTime };
    const res = await server.request('POST', '/events', { key: s.key, body });
    assert.is(res.status, 202, JSON.stringify(res.body));
    ids.push(res.body.event_id);
  }
  await waitForQueued(server, ids, ids.length);
  return ids;
}

/** One claim of the queue, sent and recorded; returns how many deliveries it took. */
function sendOnce(server: TestServer): Promise<number> {
  return new DeliveryWorker(server.services, deliveryWorkerOptions(server.services, { sending: true })).runOnce();
}

const byPlatformId = (deliveries: any[]) => new Map(deliveries.map((d) => [d.platform_event_id, d]));

test('a refusal naming data[i] fails that event alone; the rest of the batch is sent again and accepted', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4001', mode: 'live' }] });
  sandbox.setDatasetBehaviour('4001', { mode: 'accept', refuseEventIds: ['named-2'] });
  const eventIds = await queue(server, s, [0, 1, 2, 3, 4].map((i) => ({ id: `named-${i}` })));
  assert.is(await sendOnce(server), 5);

  const deliveries = byPlatformId(await waitForDeliveries(server, s.key, eventIds));
  const bad = deliveries.get('named-2');
  assert.is(bad.status, 'failed');
  assert.is(bad.attempts, 1);
  assert.match(bad.last_error, /data\[\d\] was refused by the dataset/);
  for (const id of ['named-0', 'named-1', 'named-3', 'named-4']) {
    assert.is(deliveries.get(id).status, 'accepted', id);
    assert.is(deliveries.get(id).attempts, 1, id);
  }
  const received = sandbox.received('4001');
  assert.equal(received.batches.map((b) => [b.status, b.eventCount]), [[400, 5], [200, 4]]);
  assert.is(sandbox.ledger.timesAccepted('4001', 'named-2'), 0);
});

test('a refusal without a name halves the batch until the bad event is alone; every good event is accepted once', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4002', mode: 'live' }] });
  sandbox.setDatasetBehaviour('4002', { mode: 'accept', refuseEventIds: ['halves-5'], nameRefusedEvent: false });
  const ids = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `halves-${i}`);
  const eventIds = await queue(server, s, ids.map((id) => ({ id })));
  assert.is(await sendOnce(server), 8);

  const deliveries = byPlatformId(await waitForDeliveries(server, s.key, eventIds));
  assert.is(deliveries.get('halves-5').status, 'failed');
  assert.is(deliveries.get('halves-5').last_error, 'Invalid parameter (code 100)');
  for (const id of ids.filter((id) => id !== 'halves-5')) {
    assert.is(deliveries.get(id).status, 'accepted', id);
    assert.is(deliveries.get(id).attempts, 1, id);
    assert.is(sandbox.ledger.timesAccepted('4002', id), 1, id);
  }
  // 8 refused, then per level the good half accepted and the bad half refused, down to the bad event alone.
  const received = sandbox.received('4002');
  assert.is(received.requests, 7);
  assert.is(received.batches.filter((b) => b.status === 400).map((b) => b.eventCount).join(','), '8,4,2,1');
  assert.is(received.acceptedEvents, 7);
});

test('an event older than 7 days minus a minute is cancelled without being sent; the fresh one beside it goes', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4003', mode: 'live' }] });
  // Accepted (under 7 days old), but inside the last minute before the platform's limit by the time it is sent.
  const almostTooOld = new Date(Date.now() - MAX_AGE_MS + 30_000).toISOString();
  const eventIds = await queue(server, s, [{ id: 'old-1', eventTime: almostTooOld }, { id: 'fresh-1' }]);
  assert.is(await sendOnce(server), 2);

  const deliveries = byPlatformId(await waitForDeliveries(server, s.key, eventIds));
  const old = deliveries.get('old-1');
  assert.is(old.status, 'cancelled');
  assert.is(old.attempts, 0);
  assert.match(old.last_error, '7 days');
  assert.is(deliveries.get('fresh-1').status, 'accepted');
  const received = sandbox.received('4003');
  assert.equal(received.events.map((e) => e.event_id), ['fresh-1']);
  const cancelled = await server.services.store.readAll({ types: ['DeliveryCancelled'] });
  assert.ok(cancelled.some((e) => (e.data as { deliveryId: string }).deliveryId === old.id));
});

test('a dataset the platform does not know (code 100, subcode 33) refuses the request itself: one request, every delivery failed, no split', async ({ server, sandbox }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4004', mode: 'live' }] });
  const message = "Unsupported post request. Object with ID '4004' does not exist, cannot be loaded due to missing permissions, or does not support this operation";
  sandbox.setDatasetBehaviour('4004', { mode: 'refuse', refuseCode: 100, refuseSubcode: 33, refuseMessage: message });
  const ids = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `unknown-${i}`);
  const eventIds = await queue(server, s, ids.map((id) => ({ id })));
  assert.is(await sendOnce(server), 8);

  const deliveries = await waitForDeliveries(server, s.key, eventIds);
  assert.equal(deliveries.map((d) => [d.status, d.attempts]), ids.map(() => ['failed', 1]));
  assert.is(deliveries[0].last_error, `${message} (code 100, subcode 33)`);
  assert.is(sandbox.received('4004').requests, 1);
});

/** Sends one claim through a server that stands in front of the platform and answers with `answer(events in the batch)`. */
async function sendThrough(server: TestServer, answer: (events: number) => { status: number; type: string; body: string }): Promise<{ claimed: number; batches: number[] }> {
  const batches: number[] = [];
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const events = (JSON.parse(Buffer.concat(chunks).toString()).data as unknown[]).length;
    batches.push(events);
    const a = answer(events);
    res.writeHead(a.status, { 'content-type': a.type }).end(a.body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = proxy.address() as AddressInfo;
    const worker = new DeliveryWorker(server.services, deliveryWorkerOptions(server.services, { sending: true, platform: { apiUrl: `http://127.0.0.1:${port}`, apiVersion: 'v21.0' } }));
    return { claimed: await worker.runOnce(), batches };
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
}

test('a refusal without a Graph error (a proxy\'s 404 page) is about the request, not an event: one request, every delivery failed, no split', async ({ server }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4005', mode: 'live' }] });
  const ids = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `bare-${i}`);
  const eventIds = await queue(server, s, ids.map((id) => ({ id })));
  const sent = await sendThrough(server, () => ({ status: 404, type: 'text/html', body: '<html>Not Found</html>' }));
  assert.equal(sent, { claimed: 8, batches: [8] });
  const deliveries = await waitForDeliveries(server, s.key, eventIds);
  assert.equal(deliveries.map((d) => [d.status, d.attempts]), ids.map(() => ['failed', 1]));
  assert.is(deliveries[0].last_error, 'HTTP 404 without a Graph error body');
});

test('a batch a proxy finds too large (a bare 413) is still halved: the smaller batches go through', async ({ server }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '4006', mode: 'live' }] });
  const ids = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `large-${i}`);
  const eventIds = await queue(server, s, ids.map((id) => ({ id })));
  const sent = await sendThrough(server, (events) => (events > 4
    ? { status: 413, type: 'text/html', body: '<html>Request Entity Too Large</html>' }
    : { status: 200, type: 'application/json', body: JSON.stringify({ events_received: events, messages: [], fbtrace_id: 'x' }) }));
  assert.equal(sent, { claimed: 8, batches: [8, 4, 4] });
  const deliveries = await waitForDeliveries(server, s.key, eventIds);
  assert.equal(deliveries.map((d) => [d.status, d.attempts]), ids.map(() => ['accepted', 1]));
});

test('2,500 deliveries of one dataset go in batches of at most 1,000; a refusing dataset beside it holds nothing back', async ({ server, sandbox }) => {
  const big = await setupConversions(server, { targets: [{ datasetId: '4007', mode: 'live' }] });
  const other = await setupConversions(server, { targets: [{ datasetId: '4008', mode: 'live' }] });
  sandbox.setDatasetBehaviour('4008', { mode: 'refuse', refuseMessage: 'Invalid parameter' });
  const otherIds = await queue(server, other, [{ id: 'beside-0' }, { id: 'beside-1' }]);
  let next = 0;
  const lane = async () => {
    while (next < 2500) {
      const i = next++;
      await acceptConversion(server.services, { organizationId: big.organizationId, sourceId: big.sourceId, trigger: { kind: 'status', status: 'won' }, externalId: `bulk-${i}`, email: `bulk${i}@example.com` }, { organizationId: big.organizationId, actor: 'test' });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM delivery_queue WHERE organization_id = $1', [big.organizationId]);
  assert.is(rows[0].n, '2500');

  const claims: number[] = [];
  for (let n = await sendOnce(server); n > 0; n = await sendOnce(server)) claims.push(n);
  assert.equal(claims, [2, 1000, 1000, 500]);
  const received = sandbox.received('4007');
  assert.equal(received.batches.map((b) => [b.status, b.eventCount]), [[200, 1000], [200, 1000], [200, 500]]);
  assert.is(received.uniqueEventIds, 2500);
  assert.is(received.duplicateEvents, 0);
  const beside = await waitForDeliveries(server, other.key, otherIds);
  assert.equal(beside.map((d) => d.status), ['failed', 'failed']);
  // Every delivery of the 2,500 reads accepted, once the projector has passed the three dispatches.
  for (const deadline = Date.now() + 20_000; ;) {
    const { rows: left } = await server.services.pool.query<{ n: string }>(
      `SELECT count(*) FILTER (WHERE status <> 'accepted') AS n FROM deliveries_view WHERE organization_id = $1`, [big.organizationId]);
    if (left[0].n === '0') break;
    assert.ok(Date.now() < deadline, `${left[0].n} deliveries not accepted`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

test.run();
