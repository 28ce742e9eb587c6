import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { webhookAttemptsStream, type WebhookPushesAttempted } from '../../commands/webhook/webhook.ts';
import { autoPauseWebhook } from '../../commands/webhook/handlers.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { drained, newContact, pushesTo, settled, subscribe } from './support/hooks.ts';

const test = suite<{ server: TestServer; receiver: Receiver }>('Webhooks: attempts recorded as one event per sender batch');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.receiver = await startReceiver((_push, res) => void res.writeHead(204).end());
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.receiver.close();
});

async function attemptsOf(server: TestServer, organizationId: string) {
  const events = await server.services.store.readAll({ types: ['WebhookPushesAttempted'] });
  return events.filter((e) => (e.data as WebhookPushesAttempted).organizationId === organizationId);
}

test('every push is one attempt of a WebhookPushesAttempted, and each is one record with that attempt\'s id', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/batched'), ['contact.created']);
  for (let i = 0; i < 5; i++) await newContact(server, org);
  await drained(server, org.organizationId);
  await settled(server);
  assert.is(pushesTo(receiver.received, '/batched').length, 5);
  const events = await attemptsOf(server, org.organizationId);
  const attempts = events.flatMap((e) => (e.data as WebhookPushesAttempted).attempts);
  assert.is(attempts.length, 5);
  assert.ok(events.length <= 5, 'never more events than pushes');
  for (const e of events) assert.match(e.stream, /^webhookattempts-/);
  const records = (await server.request('GET', `/webhooks/${hook.id}/deliveries`, { key: org.key })).body.data as { id: string; delivery_id: string; success: boolean }[];
  assert.equal(records.map((r) => r.id).sort(), attempts.map((a) => a.id).sort());
  assert.equal(records.map((r) => r.delivery_id).sort(), attempts.map((a) => a.deliveryId).sort());
  assert.ok(records.every((r) => r.success));
});

test('an attempt recorded before batching (WebhookDeliveryAttempted) still shows, and counts as a failure in a row', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, 'http://127.0.0.1:9/old', ['contact.created']);
  const deliveryId = randomUUID();
  const at = new Date().toISOString();
  await server.services.store.append(webhookAttemptsStream(randomUUID(), org.organizationId), [{ type: 'WebhookDeliveryAttempted', data: {
    deliveryId, webhookId: hook.id, organizationId: org.organizationId, event: 'ping', attempt: 1, status: 500, success: false, error: 'HTTP 500', durationMs: 3, at,
  } }], 'no_stream', { organizationId: org.organizationId, actor: 'worker:webhooks' });
  await settled(server);
  const [record] = (await server.request('GET', `/webhooks/${hook.id}/deliveries`, { key: org.key })).body.data;
  assert.equal([record.delivery_id, record.event, record.attempt, record.status, record.success, record.error], [deliveryId, 'ping', 1, 500, false, 'HTTP 500']);
  const webhook = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
  assert.equal([webhook.last_status, webhook.last_error, webhook.consecutive_failures], [500, 'HTTP 500', 1]);
});

test('an attempt recorded after the automatic pause (a claim that ran beside the one that reached the count) leaves its reason in last_error', async ({ server }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, 'http://127.0.0.1:9/late', ['contact.created']);
  const failed = (attempt: number, status: number) => server.services.store.append(webhookAttemptsStream(randomUUID(), org.organizationId), [{ type: 'WebhookPushesAttempted', data: {
    organizationId: org.organizationId, attempts: [{ id: randomUUID(), deliveryId: randomUUID(), webhookId: hook.id, event: 'contact.created', attempt, status, success: false, error: `HTTP ${status}`, durationMs: 3, at: new Date().toISOString() }],
  } }], 'no_stream', { organizationId: org.organizationId, actor: 'worker:webhooks' });
  await failed(1, 500);
  await autoPauseWebhook(server.services, { organizationId: org.organizationId, webhookId: hook.id, reason: 'paused after 1 failed attempts in a row', resumes: 0 });
  await failed(1, 503);
  await settled(server);
  const paused = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
  assert.equal([paused.active, paused.last_status, paused.last_error, paused.consecutive_failures], [false, 503, 'paused after 1 failed attempts in a row', 2]);
  // Once resumed, a failure is the last error again.
  assert.is((await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } })).status, 200);
  await failed(1, 502);
  await settled(server);
  const resumed = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
  assert.equal([resumed.active, resumed.last_status, resumed.last_error, resumed.consecutive_failures], [true, 502, 'HTTP 502', 1]);
});

test.run();
