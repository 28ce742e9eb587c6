import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import { dispatchStream } from '../../commands/delivery/delivery.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, drained, settled, newContact, pushesTo, queued, subscribe, verifies } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';
import { PUSH_BODIES, PUSH_PAYLOADS } from '../../commands/webhook/pushSchemas.ts';
import type { PushType } from '../../commands/webhook/webhook.ts';
import { strictSchema } from '../../src/http/responseCheck.ts';

/** The body is what the OpenAPI document's webhooks section says of its type: no field missing, none undeclared. */
function assertDocumented(body: { type: string }): void {
  const parsed = (strictSchema(PUSH_BODIES[body.type as PushType]) as typeof PUSH_BODIES[PushType]).safeParse(body);
  assert.ok(parsed.success, `${body.type}: ${JSON.stringify(parsed.error?.issues)} in ${JSON.stringify(body)}`);
}

const test = suite<{ server: TestServer; receiver: Receiver }>('Webhooks: pushes to a real receiver');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ WEBHOOK_PAUSE_AFTER: '3', WEBHOOK_TIMEOUT_MS: '2000' });
  // Every path answers 200 unless a test scripts it (the path names the test).
  ctx.receiver = await startReceiver((push, res) => {
    const status = script.get(push.path)?.(push) ?? 200;
    if (status >= 300 && status < 400) res.writeHead(status, { location: `${push.path}-redirected` }).end();
    else res.writeHead(status).end();
  });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.receiver.close();
});

type Script = (push: { path: string }) => number;
/** Answers by path (the path names the test); a path without a script answers 200. */
const script = new Map<string, Script>();

test('each event type reaches the subscriber, signed, with the documented headers, body and payload', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/all'));
  const contactId = await newContact(server, org);
  assert.is((await server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 120, currency: 'PLN' } })).status, 200);
  const lead = await receiveLead(server.services, {
    organizationId: org.organizationId, via: 'import',
    lead: { platformLeadId: `pl-${randomUUID()}`, createdTime: new Date().toISOString(), formId: 'form-1', formName: 'Spring', pageId: 'page-1', platform: 'facebook',
      ad: null, answers: [], email: `lead-${randomUUID()}@example.com`, phone: null, fullName: 'Lead Person' },
  }, { organizationId: org.organizationId, actor: 'test' });
  const failed = { deliveryId: randomUUID(), eventId: randomUUID(), organizationId: org.organizationId, targetId: 't-1', datasetId: 'ds-1', eventName: 'Purchase', attempts: 8, lastError: 'HTTP 500', failedAt: new Date().toISOString() };
  // The conversions worker appends DeliveryFailed this way when a delivery gives up.
  await server.services.store.append(dispatchStream(randomUUID()), [{ type: 'DeliveryFailed', data: failed }], 'no_stream', { organizationId: org.organizationId, actor: 'worker:deliveries' });
  await drained(server, org.organizationId);

  const pushes = pushesTo(receiver.received, '/all');
  const byType = (type: string) => pushes.map(bodyOf).filter((b) => b.type === type);
  assert.equal(byType('contact.created').map((b) => b.data).find((d) => d.contact_id === contactId), { contact_id: contactId, stage: 'new', first_source: 'api' });
  assert.equal(byType('contact.stage_changed').map((b) => b.data), [{ contact_id: contactId, from: 'new', to: 'sold', cycle: 1, value: 120, currency: 'PLN' }]);
  const [leadCreated] = byType('lead.created');
  assert.ok(leadCreated, `a lead.created push; received ${JSON.stringify(pushes.map((p) => bodyOf(p).type))}`);
  assert.equal({ ...leadCreated.data, form_id: typeof leadCreated.data.form_id }, { lead_id: lead.leadId, contact_id: lead.contactId, form_id: 'string', platform_lead_id: (leadCreated.data.platform_lead_id as string), cycle: 1, ad: null });
  assert.match(leadCreated.data.platform_lead_id as string, /^pl-/);
  assert.equal(byType('delivery.failed').map((b) => b.data), [{ delivery_id: failed.deliveryId, event_id: failed.eventId, target_id: 't-1', dataset_id: 'ds-1', event_name: 'Purchase', attempts: 8, last_error: 'HTTP 500' }]);
  assert.is(pushes.length, 5, 'two contact.created (API and the lead\'s person), one of each other type');
  for (const push of pushes) {
    const body = bodyOf(push);
    assert.equal(Object.keys(body), ['id', 'type', 'created_at', 'data']);
    assertDocumented(body);
    assert.is(push.headers['x-service-delivery'], body.id);
    // A UUID like every other id of the service (version 5 layout, RFC variant), not just 32 hex digits.
    assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.is(push.headers['x-service-event'], body.type);
    assert.match(push.headers['x-service-timestamp'] as string, /^\d{10}$/);
    assert.match(push.headers['x-service-signature'] as string, /^sha256=[0-9a-f]{64}$/);
    assert.ok(verifies(push, hook.secret), `${body.type} verifies with the secret`);
    assert.not.ok(verifies(push, 'whsec_wrong'), 'and not with another');
  }
});

// The queue keeps payloads as jsonb, which stores keys shortest first: pushes came as { stage, contact_id,
// first_source } and an ad as { ad_id, ad_name, adset_id, platform, ... }, unlike the REST resources.
test('payload keys come in the documented order, a lead.created ad in the AdSource order, as GET /leads/{id} shows it', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  await subscribe(server, org, receiver.url('/ordered'));
  const contactId = await newContact(server, org);
  assert.is((await server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 10, currency: 'PLN' } })).status, 200);
  const ad = { platform: 'instagram', campaign_id: 'c-1', campaign_name: 'Spring', adset_id: 'as-1', adset_name: 'Women 25-34', ad_id: 'a-1', ad_name: 'Video' };
  const lead = await receiveLead(server.services, {
    organizationId: org.organizationId, via: 'import',
    lead: { platformLeadId: `pl-${randomUUID()}`, createdTime: new Date().toISOString(), formId: 'form-1', formName: 'Spring', pageId: 'page-1', platform: 'instagram',
      ad, answers: [], email: `ordered-${randomUUID()}@example.com`, phone: null, fullName: 'Ordered' },
  }, { organizationId: org.organizationId, actor: 'test' });
  const failed = { deliveryId: randomUUID(), eventId: randomUUID(), organizationId: org.organizationId, targetId: 't-1', datasetId: 'ds-1', eventName: 'Purchase', attempts: 8, lastError: 'HTTP 500', failedAt: new Date().toISOString() };
  await server.services.store.append(dispatchStream(randomUUID()), [{ type: 'DeliveryFailed', data: failed }], 'no_stream', { organizationId: org.organizationId, actor: 'worker:deliveries' });
  await drained(server, org.organizationId);

  const bodies = pushesTo(receiver.received, '/ordered').map(bodyOf);
  assert.equal([...new Set(bodies.map((b) => b.type))].sort(), ['contact.created', 'contact.stage_changed', 'delivery.failed', 'lead.created']);
  for (const body of bodies) {
    assert.equal(Object.keys(body.data), Object.keys(PUSH_PAYLOADS[body.type as PushType].shape), body.type);
  }
  const leadCreated = bodies.find((b) => b.type === 'lead.created')!;
  assert.equal(leadCreated.data.ad, ad);
  assert.equal(Object.keys(leadCreated.data.ad as object), Object.keys(ad));
  const shown = await server.request('GET', `/leads/${lead.leadId}`, { key: org.key });
  assert.equal(Object.keys(shown.body.ad), Object.keys(leadCreated.data.ad as object), 'as the REST resource shows it');
});

test('a new lead reopening a sold person pushes contact.stage_changed back to new, in the new cycle', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  await subscribe(server, org, receiver.url('/reopen'), ['contact.stage_changed', 'lead.created']);
  const email = `reopen-${randomUUID()}@example.com`;
  const created = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Reopened', email } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const contactId = created.body.id as string;
  assert.is((await server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 50, currency: 'PLN' } })).status, 200);
  const lead = await receiveLead(server.services, {
    organizationId: org.organizationId, via: 'import',
    lead: { platformLeadId: `pl-${randomUUID()}`, createdTime: new Date().toISOString(), formId: 'form-1', formName: 'Spring', pageId: 'page-1', platform: 'facebook',
      ad: null, answers: [], email, phone: null, fullName: 'Reopened' },
  }, { organizationId: org.organizationId, actor: 'test' });
  assert.is(lead.contactId, contactId);
  await drained(server, org.organizationId);

  // Pushes are not ordered across deliveries: compare them sorted by type and cycle.
  const bodies = pushesTo(receiver.received, '/reopen').map(bodyOf).sort((a, b) => a.type.localeCompare(b.type) || Number(a.data.cycle) - Number(b.data.cycle));
  assert.equal(bodies.map((b) => [b.type, b.data.cycle]), [['contact.stage_changed', 1], ['contact.stage_changed', 2], ['lead.created', 2]]);
  assert.equal(bodies[1].data, { contact_id: contactId, from: 'sold', to: 'new', cycle: 2, value: null, currency: null });
  bodies.forEach(assertDocumented);
  const contact = await server.request('GET', `/contacts/${contactId}`, { key: org.key });
  assert.equal([contact.body.stage, contact.body.cycle], ['new', 2]);
});

test('unsubscribed types and other organisations\' events never arrive', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const other = await server.newOrganization();
  await subscribe(server, org, receiver.url('/stage-only'), ['contact.stage_changed']);
  await subscribe(server, other, receiver.url('/other'));
  const mine = await newContact(server, org);
  await server.request('POST', `/contacts/${mine}/stage`, { key: org.key, body: { stage: 'contacted' } });
  const theirs = await newContact(server, other);
  await drained(server, org.organizationId);
  await drained(server, other.organizationId);
  assert.equal(pushesTo(receiver.received, '/stage-only').map((p) => [bodyOf(p).type, bodyOf(p).data.contact_id]), [['contact.stage_changed', mine]]);
  assert.equal(pushesTo(receiver.received, '/other').map((p) => [bodyOf(p).type, bodyOf(p).data.contact_id]), [['contact.created', theirs]]);
});

test('a type dropped from events by PATCH is not sent, even when it was queued before (paused): a test ping still is', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/narrowed'), ['contact.created', 'contact.stage_changed']);
  await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: false } });
  const contactId = await newContact(server, org);
  const ping = await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  await settled(server);
  assert.is(await queued(server, org.organizationId), 2, 'contact.created and the ping wait while paused');
  const narrowed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { events: ['contact.stage_changed'] } });
  assert.equal(narrowed.body.events, ['contact.stage_changed']);
  assert.is((await server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'contacted' } })).status, 200);
  await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  await drained(server, org.organizationId);
  assert.equal(pushesTo(receiver.received, '/narrowed').map((p) => bodyOf(p).type).sort(), ['contact.stage_changed', 'ping']);
  assert.ok(pushesTo(receiver.received, '/narrowed').some((p) => bodyOf(p).id === ping.body.delivery_id));
});

test('a subscription created later does not receive older events', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  await newContact(server, org);
  await settled(server);
  await subscribe(server, org, receiver.url('/later'));
  const after = await newContact(server, org);
  await drained(server, org.organizationId);
  assert.equal(pushesTo(receiver.received, '/later').map((p) => bodyOf(p).data.contact_id), [after]);
});

test('ping: 202 with the delivery id, then a signed ping with the webhook id', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/ping'));
  const res = await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  assert.is(res.status, 202);
  assert.equal(Object.keys(res.body).sort(), ['delivery_id', 'event', 'status']);
  assert.equal([res.body.event, res.body.status], ['ping', 'queued']);
  const [push] = await eventually('the ping', () => pushesTo(receiver.received, '/ping').length === 1 && pushesTo(receiver.received, '/ping'));
  assert.equal([bodyOf(push).id, bodyOf(push).type, bodyOf(push).data], [res.body.delivery_id, 'ping', { webhook_id: hook.id }]);
  assertDocumented(bodyOf(push));
  assert.is(push.headers['x-service-event'], 'ping');
  assert.ok(verifies(push, hook.secret));
});

test('a redirect and a 500, then a 200: three attempts with one X-Service-Delivery, the redirect never followed, each recorded', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const answers = [302, 500, 200];
  let n = 0;
  script.set('/flaky', () => answers[Math.min(n++, 2)]);
  const hook = await subscribe(server, org, receiver.url('/flaky'));
  const ping = await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  await drained(server, org.organizationId);
  const pushes = pushesTo(receiver.received, '/flaky');
  assert.is(pushes.length, 3);
  assert.equal(new Set(pushes.map((p) => p.headers['x-service-delivery'])), new Set([ping.body.delivery_id]));
  assert.is(pushesTo(receiver.received, '/flaky-redirected').length, 0);
  await settled(server);
  const attempts = await server.request('GET', `/webhooks/${hook.id}/deliveries`, { key: org.key });
  assert.equal(attempts.body.data.map((a: Record<string, unknown>) => [a.delivery_id, a.event, a.attempt, a.status, a.success, a.error]), [
    [ping.body.delivery_id, 'ping', 3, 200, true, ''],
    [ping.body.delivery_id, 'ping', 2, 500, false, 'HTTP 500'],
    [ping.body.delivery_id, 'ping', 1, 302, false, 'redirect not followed'],
  ]);
  assert.equal(Object.keys(attempts.body.data[0]).sort(), ['attempt', 'created_at', 'delivery_id', 'duration_ms', 'error', 'event', 'id', 'status', 'success']);
  const webhook = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
  assert.equal([webhook.last_status, webhook.last_error, webhook.consecutive_failures, webhook.active], [200, '', 0, true]);
  assert.ok(webhook.last_delivery_at);
});

test('a dead receiver pauses the subscription after WEBHOOK_PAUSE_AFTER failures; events meanwhile wait; resuming sends everything queued', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  script.set('/dead', () => 503);
  const hook = await subscribe(server, org, receiver.url('/dead'));
  const ping = await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  const paused = await eventually('the automatic pause', async () => {
    const w = (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body;
    return w.active === false && w;
  });
  assert.equal([paused.consecutive_failures, paused.last_status], [3, 503]);
  assert.match(paused.last_error, /paused after 3 failed attempts in a row/);
  assert.is(pushesTo(receiver.received, '/dead').length, 3);
  assert.is(await queued(server, org.organizationId), 1, 'the ping stays queued while paused');
  const later = await newContact(server, org);
  await settled(server);
  assert.is(await queued(server, org.organizationId), 2, 'an event of a paused subscription is queued and waits');
  assert.is(pushesTo(receiver.received, '/dead').length, 3, 'and nothing is sent while paused');
  script.set('/dead', () => 200);
  const resumed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  assert.equal([resumed.body.active, resumed.body.consecutive_failures], [true, 0]);
  await drained(server, org.organizationId);
  const pushes = pushesTo(receiver.received, '/dead');
  assert.is(pushes.length, 5);
  assert.ok(pushes.slice(3).some((p) => p.headers['x-service-delivery'] === ping.body.delivery_id), 'the ping goes out on resume');
  assert.ok(pushes.slice(3).some((p) => bodyOf(p).data.contact_id === later), 'so does the event of the pause');
});

test('rotate-secret: a delivery still queued is signed with the new secret', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/rotate'));
  await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: false } });
  await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  const rotated = await server.request('POST', `/webhooks/${hook.id}/rotate-secret`, { key: org.key });
  await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  const [push] = await eventually('the ping', () => pushesTo(receiver.received, '/rotate').length === 1 && pushesTo(receiver.received, '/rotate'));
  assert.ok(verifies(push, rotated.body.secret));
  assert.not.ok(verifies(push, hook.secret));
});

test('delete drops the queued deliveries: nothing is left to send', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  script.set('/deleted', () => 500);
  const hook = await subscribe(server, org, receiver.url('/deleted'));
  await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  await newContact(server, org);
  await eventually('a first failed attempt', () => pushesTo(receiver.received, '/deleted').length > 0);
  await settled(server);
  assert.is(await queued(server, org.organizationId), 2);
  assert.is((await server.request('DELETE', `/webhooks/${hook.id}`, { key: org.key })).status, 204);
  assert.is(await queued(server, org.organizationId), 0);
});

test.run();
