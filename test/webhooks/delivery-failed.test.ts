import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { setupConversions, waitForDeliveries } from '../conversions/support.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, drained, pushesTo, subscribe, verifies } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';

// delivery.failed raised by the real conversions worker: POST /events, the delivery goes to the sandbox
// platform, the platform refuses (or keeps failing), the delivery gives up, and the subscriber is told.
const test = suite<{ server: TestServer; sandbox: Sandbox; receiver: Receiver }>('Webhooks: delivery.failed from a conversion the sandbox platform refuses');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, DELIVERY_RETRY_SCHEDULE: '100ms,200ms' });
  ctx.receiver = await startReceiver((_push, res) => void res.writeHead(200).end());
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
  await ctx.receiver.close();
});

const postEvent = (server: TestServer, key: string, source: string, externalId: string) =>
  server.request('POST', '/events', { key, body: { consent: true, status: 'won', source, external_id: externalId, email: 'a@b.pl', value: 49.5, currency: 'PLN' } });

/** The one push of `path`, once it has come. */
const onePush = (receiver: Receiver, path: string) =>
  eventually(`delivery.failed at ${path}`, () => pushesTo(receiver.received, path).length > 0 && pushesTo(receiver.received, path), 30_000);

test('a refused delivery: the subscriber gets delivery.failed, signed, with the documented payload', async ({ server, sandbox, receiver }) => {
  sandbox.setDatasetBehaviour('7001', { mode: 'refuse', refuseCode: 100, refuseMessage: 'Invalid parameter: pixel is disabled' });
  const s = await setupConversions(server, { eventName: 'Purchase', targets: [{ datasetId: '7001', mode: 'live' }] });
  const hook = await subscribe(server, s, receiver.url('/refused'), ['delivery.failed']);
  const res = await postEvent(server, s.key, s.sourceId, 'wf-1');
  assert.is(res.status, 202, JSON.stringify(res.body));
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  const [push] = await onePush(receiver, '/refused');
  const body = bodyOf(push);
  assert.is(body.type, 'delivery.failed');
  assert.is(push.headers['x-service-event'], 'delivery.failed');
  assert.is(push.headers['x-service-delivery'], body.id);
  assert.ok(verifies(push, hook.secret));
  assert.equal(Object.keys(body.data).sort(), ['attempts', 'dataset_id', 'delivery_id', 'event_id', 'event_name', 'last_error', 'target_id']);
  assert.equal(body.data, {
    delivery_id: delivery.id, event_id: res.body.event_id, target_id: s.targets[0].id, dataset_id: '7001', event_name: 'Purchase',
    attempts: 1, last_error: delivery.last_error,
  });
  assert.match(body.data.last_error as string, 'Invalid parameter: pixel is disabled');
  await drained(server, s.organizationId);
  assert.is(pushesTo(receiver.received, '/refused').length, 1, 'one push, and only for the failure');
});

test('a delivery that keeps failing gives up after the retry schedule; delivery.failed counts every attempt', async ({ server, sandbox, receiver }) => {
  sandbox.setDatasetBehaviour('7002', { mode: 'flaky', failures: 100 });
  const s = await setupConversions(server, { targets: [{ datasetId: '7002', mode: 'live' }] });
  await subscribe(server, s, receiver.url('/gave-up'), ['delivery.failed']);
  const res = await postEvent(server, s.key, s.sourceId, 'wf-2');
  const [delivery] = await waitForDeliveries(server, s.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  assert.is(delivery.attempts, 3, 'the first attempt and the two of the schedule');
  const [push] = await onePush(receiver, '/gave-up');
  const data = bodyOf(push).data;
  assert.equal([data.delivery_id, data.dataset_id, data.attempts, data.last_error], [delivery.id, '7002', 3, delivery.last_error]);
  assert.match(data.last_error as string, 'gave up after 3 attempts');
  assert.is(sandbox.received('7002').requests, 3);
});

test('another organisation\'s failed delivery is not pushed to this subscriber', async ({ server, sandbox, receiver }) => {
  sandbox.setDatasetBehaviour('7003', { mode: 'refuse' });
  const mine = await setupConversions(server, { targets: [{ datasetId: '7004', mode: 'live' }] });
  await subscribe(server, mine, receiver.url('/mine'), ['delivery.failed']);
  const theirs = await setupConversions(server, { targets: [{ datasetId: '7003', mode: 'live' }] });
  const res = await postEvent(server, theirs.key, theirs.sourceId, 'wf-3');
  const [delivery] = await waitForDeliveries(server, theirs.key, [res.body.event_id]);
  assert.is(delivery.status, 'failed');
  await drained(server, mine.organizationId);
  assert.is(pushesTo(receiver.received, '/mine').length, 0);
});

test.run();
