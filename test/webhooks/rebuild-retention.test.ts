import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { webhookOutboxProjector } from '../../projections/webhook_outbox/projector.ts';
import { WebhookSender, webhookSenderOptions } from '../../src/processes/webhooks/worker.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, drained, newContact, pushesTo, settled, subscribe } from './support/hooks.ts';

const test = suite<{ server: TestServer; receiver: Receiver }>('Webhooks: rebuilds and retention');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.receiver = await startReceiver((_push, res) => res.writeHead(200).end());
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.receiver.close();
});

test('a rebuild of the fan-out queues no old event again, and new events still go out once', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/rebuild'), ['contact.created']);
  const before = [await newContact(server, org), await newContact(server, org)];
  await drained(server, org.organizationId);
  await rebuildProjector(server.services.pool, server.services.store, webhookOutboxProjector);
  const after = await newContact(server, org);
  await drained(server, org.organizationId);
  const pushes = pushesTo(receiver.received, '/rebuild');
  assert.equal(pushes.map((p) => bodyOf(p).data.contact_id).sort(), [...before, after].sort());
  assert.is(new Set(pushes.map((p) => p.headers['x-service-delivery'])).size, 3);
  const { rows } = await server.services.pool.query('SELECT id, active FROM webhook_subscriptions WHERE organization_id = $1', [org.organizationId]);
  assert.equal(rows, [{ id: hook.id, active: true }]);
});

// The rebuild ran the fan-out's migrations again, and they built (then dropped) indexes on the live push
// queue: the rebuild waited on every transaction writing to the queue, and deadlocked with senders and writers.
test('a rebuild of the fan-out takes no lock on the live push queue', async ({ server }) => {
  const writer = await server.services.pool.connect();
  try {
    await writer.query('BEGIN');
    // As a transaction queuing pushes holds it until it commits.
    await writer.query('LOCK TABLE webhook_queue IN ROW EXCLUSIVE MODE');
    const rebuilt = rebuildProjector(server.services.pool, server.services.store, webhookOutboxProjector).then(() => 'rebuilt');
    const waited = new Promise((resolve) => setTimeout(() => resolve('waited on the queue'), 3000));
    assert.is(await Promise.race([rebuilt, waited]), 'rebuilt');
  } finally {
    await writer.query('COMMIT');
    writer.release();
  }
});

test('attempt records older than 30 days are not listed and the sender purges them', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/retention'));
  await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  await drained(server, org.organizationId);
  await settled(server);
  const old = new Date(Date.now() - 31 * 86_400_000);
  await server.services.pool.query(
    `INSERT INTO webhook_attempts (organization_id, webhook_id, id, delivery_id, event, attempt, status, success, error, duration_ms, created_at)
     VALUES ($1, $2, 'old-attempt', 'old-delivery', 'ping', 1, 200, true, '', 5, $3)`, [org.organizationId, hook.id, old]);
  const listed = await server.request('GET', `/webhooks/${hook.id}/deliveries`, { key: org.key });
  assert.equal(listed.body.data.map((a: { event: string }) => a.event), ['ping']);
  await new WebhookSender(server.services, webhookSenderOptions(server.services)).maintain();
  const { rows } = await server.services.pool.query<{ id: string }>('SELECT id FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2', [org.organizationId, hook.id]);
  assert.is(rows.length, 1);
  assert.is.not(rows[0].id, 'old-attempt');
});

test.run();
