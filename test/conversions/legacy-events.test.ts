import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { dispatchStream } from '../../commands/delivery/delivery.ts';
import { setupConversions } from './support.ts';

// Stores written before dispatches were recorded whole hold one DeliveryAttempted / DeliveryAccepted per delivery.
const test = suite<{ server: TestServer }>('Deliveries: per-delivery outcome events of older stores are still read');
test.before(async (ctx) => { ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' }); });
test.after(async (ctx) => { await ctx.server.stop(); });

test('an old DeliveryAttempted then DeliveryAccepted show the delivery accepted and take it off the queue', async ({ server }) => {
  const s = await setupConversions(server, { targets: [{ datasetId: '5001', mode: 'live' }] });
  const res = await server.request('POST', '/events', { key: s.key, body: { source: s.sourceId, status: 'won', consent: true, external_id: 'legacy-1', email: 'l@example.com' } });
  const [queued] = (await server.request('GET', `/events/${res.body.event_id}`, { key: s.key })).body.deliveries;
  const ids = { deliveryId: queued.id, eventId: res.body.event_id, organizationId: s.organizationId };
  const at = new Date().toISOString();
  const appended = await server.services.store.append(dispatchStream(randomUUID()), [
    { type: 'DeliveryAttempted', data: { ...ids, targetId: s.targets[0].id, datasetId: '5001', attempt: 1, attemptedAt: at } },
    { type: 'DeliveryAccepted', data: { ...ids, attempts: 1, acceptedAt: at } },
  ], 'no_stream', { organizationId: s.organizationId, actor: 'worker:deliveries' });
  // Our own append's position, not the store's head: a transaction still open elsewhere can hide the head.
  assert.ok(await server.services.waiter.waitFor(['conversions', 'delivery_queue'], appended.position, 10_000));

  const [delivery] = (await server.request('GET', `/events/${res.body.event_id}`, { key: s.key })).body.deliveries;
  assert.is(delivery.status, 'accepted');
  assert.is(delivery.attempts, 1);
  assert.is(delivery.accepted_at, at);
  const { rows } = await server.services.pool.query('SELECT 1 FROM delivery_queue WHERE id = $1', [queued.id]);
  assert.is(rows.length, 0);
});

test.run();
