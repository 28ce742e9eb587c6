// A conversion repeated after its source gained a flow: the repeat queues the delivery the new flow asks
// for (deduplication is per delivery, by dataset and event name), and counts the ones that exist as duplicates.
// Before, a repeat never queued anything, so a spreadsheet's rows read by the sync at the source's creation
// (before any flow could exist) were never sent.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';
import { setupConversions, type Setup } from './support.ts';

const test = suite<{ server: TestServer; s: Setup }>('a repeated conversion after a new flow');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.s = await setupConversions(ctx.server, { status: 'won', targets: [{ datasetId: '918201', mode: 'live' }] });
});
test.after(async (ctx) => { await ctx.server.stop(); });

const post = (server: TestServer, key: string, body: Record<string, unknown>) =>
  server.request('POST', '/events', { key, body, headers: { 'accept-language': 'en' } });

async function addFlow(server: TestServer, s: Setup, targetId: string, status: string, eventName: string) {
  const flow = await createFlow(server.services.store, { sourceId: s.sourceId, targetId, eventName, trigger: { kind: 'status', status } }, new Date());
  await server.services.waiter.waitFor(['setup'], flow.position, 10_000);
}

test('a repeat queues the delivery of a flow added since, once; GET /events and GET /deliveries show it', async ({ server, s }) => {
  const body = { source: s.sourceId, status: 'bbB-paid', external_id: 'bbB-row-1', consent: true, email: 'jan@example.com' };
  const first = await post(server, s.key, body);
  assert.equal([first.status, first.body.deliveries_created, first.body.duplicates], [202, 0, 0]);

  await addFlow(server, s, s.targets[0].id, 'bbB-paid', 'Lead');
  const again = await post(server, s.key, body);
  assert.is(again.status, 202, JSON.stringify(again.body));
  assert.is(again.body.event_id, first.body.event_id);
  assert.equal([again.body.deliveries_created, again.body.duplicates], [1, 0]);

  const event = await server.request('GET', `/events/${first.body.event_id}`, { key: s.key });
  assert.equal(event.body.deliveries.map((d: any) => [d.dataset_id, d.event_name, d.status]), [['918201', 'Lead', 'pending']]);
  assert.is(event.body.updated_at, event.body.deliveries[0].created_at);
  const listed = await server.request('GET', `/deliveries?event=${first.body.event_id}`, { key: s.key });
  assert.is(listed.body.data.length, 1);
  const { rows } = await server.services.pool.query('SELECT id FROM delivery_queue WHERE event_id = $1', [first.body.event_id]);
  assert.is(rows.length, 1);

  const third = await post(server, s.key, body);
  assert.equal([third.status, third.body.deliveries_created, third.body.duplicates], [202, 0, 1]);
});

test('a repeat adds only the new dataset: the existing delivery is a duplicate', async ({ server, s }) => {
  const body = { source: s.sourceId, status: 'won', external_id: 'bbB-row-2', consent: true, email: 'jan@example.com' };
  const first = await post(server, s.key, body);
  assert.equal([first.body.deliveries_created, first.body.duplicates], [1, 0]);
  const now = new Date();
  const target = await createTarget(server.services.store, server.services.secrets.encryptionKey, { organizationId: s.organizationId, datasetId: '918202', token: 'EAAB-test-token-123', mode: 'live', testCode: null }, now);
  await addFlow(server, s, target.id, 'won', 'Lead');
  const again = await post(server, s.key, body);
  assert.equal([again.status, again.body.deliveries_created, again.body.duplicates], [202, 1, 1]);
  const event = await server.request('GET', `/events/${first.body.event_id}`, { key: s.key });
  assert.equal(event.body.deliveries.map((d: any) => d.dataset_id).sort(), ['918201', '918202']);
});

test('a repeat without a value refused once its status maps to a Purchase flow', async ({ server, s }) => {
  const body = { source: s.sourceId, status: 'bbB-sold', external_id: 'bbB-row-3', consent: true, email: 'jan@example.com' };
  assert.is((await post(server, s.key, body)).status, 202);
  await addFlow(server, s, s.targets[0].id, 'bbB-sold', 'Purchase');
  const again = await post(server, s.key, body);
  assert.equal([again.status, again.body.error?.code, again.body.error?.details?.field], [400, 'validation_error', 'value']);
});

test('repeats racing after a new flow queue its delivery once', async ({ server, s }) => {
  const body = { source: s.sourceId, status: 'bbB-race', external_id: 'bbB-row-4', consent: true, email: 'jan@example.com' };
  assert.is((await post(server, s.key, body)).status, 202);
  await addFlow(server, s, s.targets[0].id, 'bbB-race', 'Lead');
  const raced = await Promise.all(Array.from({ length: 6 }, () => post(server, s.key, body)));
  assert.ok(raced.every((r) => r.status === 202), JSON.stringify(raced.map((r) => r.body)));
  assert.equal(raced.map((r) => r.body.deliveries_created).sort(), [0, 0, 0, 0, 0, 1]);
  assert.ok(raced.every((r) => r.body.deliveries_created + r.body.duplicates === 1));
});

test.run();
