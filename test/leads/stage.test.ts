import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';
import { pauseSource } from '../../commands/source/handlers.ts';
import { formSourceId } from '../../commands/source/handlers.ts';
import { contactsProjector } from '../../projections/contacts/projector.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead, platformLead } from './support.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg }>('Stage changes: open leads move together and queue conversions');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, DELIVERY_RETRY_SCHEDULE: '100ms,200ms' });
  ctx.org = await ctx.server.newOrganization({ currency: 'PLN' });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

async function flowFor(server: TestServer, org: TestOrg, platformFormId: string, stage: string, datasetIds: string[], eventName = 'Purchase') {
  const { store, secrets } = server.services;
  const sourceId = formSourceId(org.organizationId, platformFormId);
  for (const datasetId of datasetIds) {
    const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId, token: 'EAAB-test-token-123', mode: 'live' }, new Date());
    await createFlow(store, { sourceId, targetId: target.id, eventName, trigger: { kind: 'stage', stage } }, new Date());
  }
  await server.settle();
  return sourceId;
}

test('to sold with flows: one conversion per lead with a flow (one delivery per dataset), the value counted once on the newest', async ({ server, sandbox, org }) => {
  const older = await importLead(server, org, { id: '7001', formId: 'form-sold', email: 'buyer@example.com', phone: '600111222', created: '2025-03-01T10:00:00+0000' });
  const newer = await importLead(server, org, { id: '7002', formId: 'form-sold', email: 'buyer@example.com', created: '2025-03-05T10:00:00+0000' });
  const noFlow = await importLead(server, org, { id: '7003', formId: 'form-quiet', email: 'buyer@example.com', created: '2025-03-09T10:00:00+0000' });
  await flowFor(server, org, 'form-sold', 'sold', ['3001', '3002']);
  const res = await server.request('POST', `/contacts/${older.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 1200 } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal([res.body.contact.stage, res.body.platform_events_queued, res.body.leads_without_send], ['sold', 2, 1]);

  const stream = await server.services.store.readStream(`contact-${older.contactId}`);
  const changed = stream[stream.length - 1].data as { valueLeadId: string; value: number; currency: string; leads: { leadId: string; platformEventQueued: boolean; conversionEventId: string | null }[] };
  assert.equal([changed.valueLeadId, changed.value, changed.currency], [newer.leadId, 1200, 'PLN']);
  assert.equal(changed.leads.map((l) => [l.leadId, l.platformEventQueued]), [[noFlow.leadId, false], [newer.leadId, true], [older.leadId, true]]);

  // The conversions: the newest queued lead carries the value, the other 0; each went to both datasets.
  const events = await Promise.all([newer, older].map((l) => server.request('GET', `/events?external_id=${l.leadId}`, { key: org.key })));
  assert.equal(events.map((e) => e.body.data.map((c: { value: number }) => c.value)), [[1200], [0]]);
  for (const datasetId of ['3001', '3002']) {
    const sent = await eventually(`both conversions at dataset ${datasetId}`, async () => sandbox.received(datasetId).events.length === 2 && (sandbox.received(datasetId).events as any[]));
    assert.equal(sent.map((e) => e.user_data.lead_id).sort(), ['7001', '7002']);
    assert.equal(sent.map((e) => e.event_name), ['Purchase', 'Purchase']);
    // The platform's Conversion Leads payload: system_generated, lead_id unhashed, custom_data event_source crm and lead_event_source.
    for (const e of sent) {
      assert.is(e.action_source, 'system_generated');
      assert.equal([e.custom_data.event_source, e.custom_data.lead_event_source], ['crm', 'Conversion and Lead Management API']);
    }
  }
  const lead = await server.request('GET', `/leads/${newer.leadId}`, { key: org.key });
  assert.equal(lead.body.stages.map((s: { stage: string; platform_event_queued: boolean }) => [s.stage, s.platform_event_queued]), [['new', false], ['sold', true]]);
  const quiet = await server.request('GET', `/leads/${noFlow.leadId}`, { key: org.key });
  assert.equal(quiet.body.stages.map((s: { stage: string; platform_event_queued: boolean }) => [s.stage, s.platform_event_queued]), [['new', false], ['sold', false]]);
  assert.equal(quiet.body.stage, 'sold');
});

test('without a flow for the target stage nothing is queued, and a value falls on the newest open lead', async ({ server, org }) => {
  const a = await importLead(server, org, { id: '7101', formId: 'form-sold', email: 'nobuy@example.com', created: '2025-03-01T10:00:00+0000' });
  const b = await importLead(server, org, { id: '7102', formId: 'form-sold', email: 'nobuy@example.com', created: '2025-03-02T10:00:00+0000' });
  const res = await server.request('POST', `/contacts/${a.contactId}/stage`, { key: org.key, body: { stage: 'qualified', value: 50, currency: 'eur' } });
  assert.equal([res.body.platform_events_queued, res.body.leads_without_send], [0, 2]);
  const stream = await server.services.store.readStream(`contact-${a.contactId}`);
  const changed = stream[stream.length - 1].data as { valueLeadId: string; currency: string };
  assert.equal([changed.valueLeadId, changed.currency], [b.leadId, 'EUR']);
  const none = await server.request('GET', `/events?external_id=${b.leadId}`, { key: org.key });
  assert.equal(none.body.data, []);
});

test('a paused form source queues nothing; a repeated move to the same stage later is not queued twice', async ({ server, org }) => {
  const lead = await importLead(server, org, { id: '7201', formId: 'form-paused', email: 'paused@example.com' });
  const sourceId = await flowFor(server, org, 'form-paused', 'contacted', ['3101'], 'Lead');
  await pauseSource(server.services.store, sourceId, new Date());
  // Routing reads the setup read model: wait until it shows the pause.
  await eventually('the setup read model to show the pause', async () => (await server.services.pool.query('SELECT paused FROM sources WHERE organization_id = $1 AND id = $2', [org.organizationId, sourceId])).rows[0]?.paused === true);
  const paused = await server.request('POST', `/contacts/${lead.contactId}/stage`, { key: org.key, body: { stage: 'contacted' } });
  assert.is(paused.status, 200, JSON.stringify(paused.body));
  assert.equal([paused.body.platform_events_queued, paused.body.leads_without_send], [0, 1]);
  const repeat = await importLead(server, org, { id: '7202', formId: 'form-sold', email: 'again@example.com' });
  const first = await server.request('POST', `/contacts/${repeat.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 10 } });
  assert.is(first.body.platform_events_queued, 1);
  await server.request('POST', `/contacts/${repeat.contactId}/stage`, { key: org.key, body: { stage: 'rejected' } });
  const again = await server.request('POST', `/contacts/${repeat.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 10 } });
  assert.equal([again.body.platform_events_queued, again.body.leads_without_send], [0, 1]);
});

test('stage changes made through the API apply live and replay in a rebuild to the same rows (no parameter typed two ways)', async ({ server, org }) => {
  const a = await importLead(server, org, { id: '7301', formId: 'form-sold', email: 'replay@example.com', created: '2025-03-01T10:00:00+0000' });
  await importLead(server, org, { id: '7302', formId: 'form-quiet', email: 'replay@example.com', created: '2025-03-02T10:00:00+0000' });
  const moves = [{ stage: 'contacted' }, { stage: 'sold', value: 99.5, currency: 'EUR' }, { stage: 'rejected' }, { stage: 'qualified', value: 5 }];
  for (const body of moves) {
    const res = await server.request('POST', `/contacts/${a.contactId}/stage`, { key: org.key, body });
    assert.is(res.status, 200, JSON.stringify(res.body));
  }
  // A lead for the closed person opens cycle 2; its stage change moves only that cycle's lead.
  await server.request('POST', `/contacts/${a.contactId}/stage`, { key: org.key, body: { stage: 'sold' } });
  await importLead(server, org, { id: '7303', formId: 'form-quiet', email: 'replay@example.com', created: '2025-04-01T10:00:00+0000' });
  assert.is((await server.request('POST', `/contacts/${a.contactId}/stage`, { key: org.key, body: { stage: 'contacted' } })).status, 200);
  await server.settle();

  const rows = async () => {
    const contacts = await server.services.pool.query('SELECT * FROM contacts WHERE organization_id = $1 ORDER BY id', [org.organizationId]);
    const leads = await server.services.pool.query('SELECT * FROM leads WHERE organization_id = $1 ORDER BY id', [org.organizationId]);
    return { contacts: contacts.rows, leads: leads.rows };
  };
  const live = await rows();
  const history = live.leads.find((l) => l.platform_lead_id === '7301').stages.map((s: { stage: string }) => s.stage);
  assert.equal(history, ['new', 'contacted', 'sold', 'rejected', 'qualified', 'sold']);
  await rebuildProjector(server.services.pool, server.services.store, contactsProjector);
  assert.equal(await rows(), live);
  const status = await server.services.pool.query('SELECT status, error FROM projection_checkpoints WHERE name = $1', ['contacts']);
  assert.equal(status.rows[0], { status: 'running', error: '' });
});

test('a lead landing while a stage change is under way: a conversion is queued only for a lead the change moved', async ({ server, org }) => {
  await importLead(server, org, { id: '7400', formId: 'form-race', phone: '600740000' });
  await flowFor(server, org, 'form-race', 'contacted', ['3400'], 'Contact');
  const metadata = { organizationId: org.organizationId, actor: 'test' };
  for (let round = 1; round <= 8; round++) {
    const phone = `60074${String(round).padStart(4, '0')}`;
    const closed = await importLead(server, org, { id: `74${round}0`, formId: 'form-race', phone });
    assert.is((await server.request('POST', `/contacts/${closed.contactId}/stage`, { key: org.key, body: { stage: 'sold' } })).status, 200);
    // The new lead opens cycle 2 either before the move (which then moves it) or after (it stays new).
    const [moved, fresh] = await Promise.all([
      server.request('POST', `/contacts/${closed.contactId}/stage`, { key: org.key, body: { stage: 'contacted' } }),
      receiveLead(server.services, { organizationId: org.organizationId, lead: platformLead({ id: `74${round}1`, formId: 'form-race', phone }), via: 'import' }, metadata),
    ]);
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    await server.settle();
    let sent = 0;
    for (const leadId of [closed.leadId, fresh.leadId]) {
      const lead = (await server.request('GET', `/leads/${leadId}`, { key: org.key })).body;
      const events = (await server.request('GET', `/events?external_id=${leadId}`, { key: org.key })).body.data;
      const queuedInHistory = lead.stages.some((s: { stage: string; platform_event_queued: boolean }) => s.stage === 'contacted' && s.platform_event_queued);
      assert.is(events.length, queuedInHistory ? 1 : 0, `round ${round}, lead ${lead.platform_lead_id} (${lead.stage}, cycle ${lead.cycle}): ${events.length} conversions`);
      sent += events.length;
    }
    assert.is(sent, moved.body.platform_events_queued, `round ${round}`);
  }
});

test('a card whose e-mail the conversion rules refuse still sends its leads\' conversions, with lead_id and the phone', async ({ server, sandbox, org }) => {
  // An export's e-mail answer with a space inside is kept on the card; the conversion used to be refused whole
  // (validation_error on email), so the lead went without a send although its lead_id and phone match it.
  const lead = await importLead(server, org, { id: '7501', formId: 'form-odd-mail', email: 'jan kowalski@example.com', phone: '600750100' });
  await flowFor(server, org, 'form-odd-mail', 'qualified', ['3501'], 'Lead');
  const res = await server.request('POST', `/contacts/${lead.contactId}/stage`, { key: org.key, body: { stage: 'qualified' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal([res.body.platform_events_queued, res.body.leads_without_send], [1, 0]);
  const [sent] = await eventually('the conversion at dataset 3501', async () => sandbox.received('3501').events.length === 1 && (sandbox.received('3501').events as any[]));
  assert.is(sent.user_data.lead_id, '7501');
  assert.is(sent.user_data.em, undefined);
  assert.is(sent.user_data.ph.length, 1);
});

test('with an Idempotency-Key the change carries its claim and the conversions do not: a repeat after a crash between them makes the change', async ({ server, org }) => {
  // A repeat after its process died runs again only when no event carries the claim (src/http/idempotency.ts): the
  // conversions are queued before the change's append, and the repeat must still land the change.
  const lead = await importLead(server, org, { id: '7601', formId: 'form-claim', email: 'claim@example.com' });
  await flowFor(server, org, 'form-claim', 'sold', ['3601']);
  const res = await server.request('POST', `/contacts/${lead.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 10 }, headers: { 'idempotency-key': 'stage-claim-1' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.platform_events_queued, 1);
  const { rows } = await server.services.pool.query(
    `SELECT event_type, metadata ? 'idempotencyClaim' AS claimed FROM es_events WHERE metadata->>'correlationId' = $1 ORDER BY global_position`,
    [res.headers.get('x-request-id')]);
  assert.equal(rows.filter((r) => r.claimed).map((r) => r.event_type), ['ContactStageChanged']);
  assert.ok(rows.some((r) => r.event_type === 'ConversionAccepted' && !r.claimed));
});

test.run();
