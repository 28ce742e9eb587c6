// Black-box isolation checks the per-endpoint cross-organisation tests leave out: a merged card, a phone both
// organisations have, one event_id and one Idempotency-Key value in both, and every list's cursor replayed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertInvisibleToOtherOrg } from '../support/crossOrg.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from '../leads/support.ts';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { createSource } from '../../commands/source/handlers.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';

interface Ctx { server: TestServer; a: TestOrg; b: TestOrg; merged: string; survivor: string; sourceA: string; targetA: string; sourceB: string; hookA: string }
const test = suite<Ctx>('Another organisation: merged cards, shared phones and event ids, reused keys and cursors');

/** A spreadsheet source with a live flow won -> Lead to the dataset, as `ops source/target/flow create` make them. */
async function conversionSetup(server: TestServer, org: TestOrg, datasetId: string) {
  const { store, secrets } = server.services;
  const now = new Date();
  const source = await createSource(store, { organizationId: org.organizationId, kind: 'spreadsheet', name: 'CRM' }, now);
  const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId, token: 'EAAB-test-token-123', mode: 'live' }, now);
  await createFlow(store, { sourceId: source.id, targetId: target.id, eventName: 'Lead', trigger: { kind: 'status', status: 'won' } }, now);
  await server.settle();
  return { sourceId: source.id, targetId: target.id };
}

test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.a = await ctx.server.newOrganization();
  ctx.b = await ctx.server.newOrganization();
  const from = await importLead(ctx.server, ctx.a, { id: '880001', name: 'Merged Person', email: 'merged@example.com', phone: '600111222', ad: 'ad-m', campaign: 'camp-m' });
  const into = await importLead(ctx.server, ctx.a, { id: '880002', name: 'Survivor', email: 'survivor@example.com', phone: '600111333' });
  await mergeContacts(ctx.server.services, { fromId: from.contactId!, intoId: into.contactId! }, new Date());
  await ctx.server.settle();
  ctx.merged = from.contactId!;
  ctx.survivor = into.contactId!;
  ({ sourceId: ctx.sourceA, targetId: ctx.targetA } = await conversionSetup(ctx.server, ctx.a, '7001'));
  ({ sourceId: ctx.sourceB } = await conversionSetup(ctx.server, ctx.b, '7001'));
  // Nothing listens on port 9: every push fails, so the subscription has delivery attempts to list.
  const hook = await ctx.server.request('POST', '/webhooks', { key: ctx.a.key, body: { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] } });
  ctx.hookA = hook.body.id;
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('a card the owner merged is 404 not_found for another organisation on every contact route, never 409 contact_merged', async ({ server, a, merged, survivor }) => {
  assert.is((await server.request('GET', `/contacts/${merged}`, { key: a.key })).body.error.code, 'contact_merged');
  for (const [method, path, body] of [
    ['GET', `/contacts/${merged}`, undefined],
    ['PATCH', `/contacts/${merged}`, { name: 'Taken over' }],
    ['POST', `/contacts/${merged}/stage`, { stage: 'sold' }],
    ['POST', `/contacts/${merged}/notes`, { text: 'hello' }],
    ['POST', `/contacts/${merged}/tags`, { add: ['x'] }],
    ['POST', `/contacts/${merged}/sms-optout`, { sms_optout: true }],
  ] as const) {
    await assertInvisibleToOtherOrg(server, { method, path, body, secrets: [survivor, 'Merged Person'], unchanged: { key: a.key, path: `/contacts/${survivor}` } });
  }
  await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/leads?contact=${merged}`, secrets: ['880001'] });
});

test('an SMS block on a phone both organisations have stays in the organisation that set it', async ({ server, a, b, survivor }) => {
  const theirs = await server.request('POST', '/contacts', { key: b.key, body: { phone: '+48 600 111 333', name: 'Same phone' } });
  assert.is(theirs.status, 201, JSON.stringify(theirs.body));
  const blocked = await server.request('POST', `/contacts/${theirs.body.id}/sms-optout`, { key: b.key, body: { sms_optout: true } });
  assert.equal([blocked.status, blocked.body.sms_optout], [200, true]);
  await server.settle();
  assert.is((await server.request('GET', `/contacts/${survivor}`, { key: a.key })).body.sms_optout, false);
  const lists = await server.services.pool.query<{ organization_id: string }>('SELECT DISTINCT organization_id FROM sms_do_not_send');
  assert.equal(lists.rows.map((r) => r.organization_id), [b.organizationId]);
  // And a new card of the owner with that phone (a lead brings it) starts unblocked.
  const lead = await importLead(server, a, { id: '880003', email: 'third@example.com', phone: '600111333' });
  assert.is((await server.request('GET', `/contacts/${lead.contactId}`, { key: a.key })).body.sms_optout, false);
});

test('one event_id in both organisations: each queues its own delivery; the owner\'s source is 404 for the other', async ({ server, a, b, sourceA, sourceB, targetA }) => {
  const order = { external_id: 'o-1', status: 'won', consent: true, event_id: 'shared-1', email: 'x@example.com' };
  const mine = await server.request('POST', '/events', { key: a.key, body: { ...order, source: sourceA } });
  const theirs = await server.request('POST', '/events', { key: b.key, body: { ...order, source: sourceB } });
  assert.equal([mine.status, mine.body.deliveries_created, mine.body.duplicates], [202, 1, 0], JSON.stringify(mine.body));
  assert.equal([theirs.status, theirs.body.deliveries_created, theirs.body.duplicates], [202, 1, 0], JSON.stringify(theirs.body));
  assert.is.not(mine.body.event_id, theirs.body.event_id);
  await assertInvisibleToOtherOrg(server, { method: 'POST', path: '/events', body: { ...order, external_id: 'o-2', source: sourceA } });
  await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/events/${mine.body.event_id}`, secrets: [sourceA] });
  for (const path of [`/events?source=${sourceA}`, '/events?external_id=o-1', `/deliveries?event=${mine.body.event_id}`, `/deliveries?target=${targetA}`]) {
    await assertInvisibleToOtherOrg(server, { method: 'GET', path, secrets: [mine.body.event_id, targetA] });
  }
  const owned = await server.request('GET', `/deliveries?event=${mine.body.event_id}`, { key: a.key });
  assert.equal(owned.body.data.map((d: { target_id: string }) => d.target_id), [targetA]);
});

test('an Idempotency-Key value the owner used is a new request for another organisation', async ({ server, a, b }) => {
  const headers = { 'idempotency-key': 'same-value-1' };
  const first = await server.request('POST', '/contacts', { key: a.key, body: { email: 'idem@example.com' }, headers });
  const other = await server.request('POST', '/contacts', { key: b.key, body: { email: 'idem@example.com' }, headers });
  assert.equal([first.status, other.status], [201, 201]);
  assert.is.not(other.body.id, first.body.id);
  assert.is(other.headers.get('idempotent-replayed'), null);
});

test('a cursor of the owner\'s list is 400 invalid_cursor for another organisation, never its next page', async ({ server, a, b, sourceA, hookA }) => {
  await server.request('POST', '/events', { key: a.key, body: { source: sourceA, external_id: 'o-3', status: 'won', consent: true } });
  await eventually('two failed pushes to the owner\'s subscription', async () => {
    const attempts = await server.request('GET', `/webhooks/${hookA}/deliveries`, { key: a.key });
    return attempts.body.data.length >= 2;
  });
  const other = await server.request('POST', '/webhooks', { key: b.key, body: { url: 'http://127.0.0.1:9/other', events: ['contact.created'] } });
  for (const [path, replayed] of [
    ['/contacts', '/contacts'], ['/leads', '/leads'], ['/events', '/events'], ['/deliveries', '/deliveries'],
    [`/webhooks/${hookA}/deliveries`, `/webhooks/${other.body.id}/deliveries`],
  ]) {
    const page = await server.request('GET', `${path}?limit=1`, { key: a.key });
    assert.ok(page.body.has_more, path);
    const stolen = await server.request('GET', `${replayed}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: b.key });
    assert.equal([stolen.status, stolen.body.error?.code], [400, 'invalid_cursor'], path);
  }
});

test.run();
