import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { runOps } from '../reports/cli.ts';
import { importLead } from '../leads/support.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';
import { formSourceId } from '../../commands/source/handlers.ts';

// The operator CLI runs in a process of its own, so the service's in-process turns cannot keep it out of a
// stage change under way: these races run the real CLI as a child process against the service's database.
const test = suite<{ server: TestServer; org: TestOrg }>('Cross-process turns: a stage change that does not land queues nothing, whatever process races it');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

async function flowFor(server: TestServer, org: TestOrg, platformFormId: string, stage: string, datasetId: string) {
  const { store, secrets } = server.services;
  const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId, token: 'EAAB-test-token-123', mode: 'live' }, new Date());
  await createFlow(store, { sourceId: formSourceId(org.organizationId, platformFormId), targetId: target.id, eventName: 'Contact', trigger: { kind: 'stage', stage } }, new Date());
  await server.settle();
}

/**
 * Holds the writes of new conversions' rows (a table lock, as a slow disk or a long transaction would) so a stage
 * change stops between queueing its conversions and appending its move; `during` runs while it is stopped.
 */
async function withStageChangeStopped<T>(server: TestServer, stageChange: () => Promise<T>, during: () => Promise<void>): Promise<T> {
  const blocker = new pg.Client({ connectionString: server.db.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN; LOCK TABLE events_view IN SHARE ROW EXCLUSIVE MODE');
    const changing = stageChange();
    await eventually('the stage change waiting on its conversion', async () =>
      (await blocker.query(`SELECT 1 FROM pg_locks WHERE relation = 'events_view'::regclass AND NOT granted`)).rowCount);
    await during();
    await blocker.query('COMMIT');
    return await changing;
  } finally {
    await blocker.end();
  }
}

/** Until the other process has written, or has ended, or waits for a stream's turn (src/db/streamLocks.ts: class 7300001). */
async function untilLandedOrWaiting(server: TestServer, what: string, landed: () => Promise<boolean>, ended: () => boolean) {
  const waiting = `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid = 7300001 AND NOT granted`;
  await eventually(what, async () => ended() || (await landed()) || ((await server.services.pool.query(waiting)).rowCount ?? 0) > 0);
}

const streamHas = async (server: TestServer, stream: string, type: string) => (await server.services.store.readStream(stream)).some((e) => e.type === type);

function started<T>(promise: Promise<T>): { promise: Promise<T>; ended: () => boolean } {
  let done = false;
  promise.finally(() => { done = true; }).catch(() => {});
  return { promise, ended: () => done };
}

async function conversionsOf(server: TestServer, org: TestOrg, leadId: string): Promise<number> {
  return (await server.request('GET', `/events?external_id=${leadId}`, { key: org.key })).body.data.length;
}

test('ops contacts merge while a stage change is under way: the change lands with its conversions, then the merge', async ({ server, org }) => {
  const lead = await importLead(server, org, { id: '8100001', formId: '81001', phone: '600810001' });
  await flowFor(server, org, '81001', 'qualified', '38100');
  const into = await server.request('POST', '/contacts', { key: org.key, body: { phone: '600810002' } });
  const fromId = lead.contactId!;
  let merge!: ReturnType<typeof started<Awaited<ReturnType<typeof runOps>>>>;
  const moved = await withStageChangeStopped(server,
    () => server.request('POST', `/contacts/${fromId}/stage`, { key: org.key, body: { stage: 'qualified' } }),
    async () => {
      merge = started(runOps(server.db.url, ['contacts', 'merge', fromId, '--into', into.body.id, '--json']));
      await untilLandedOrWaiting(server, 'the merge landing or waiting', () => streamHas(server, `contact-${fromId}`, 'ContactMerged'), merge.ended);
    });
  const merged = await merge.promise;
  await server.settle();
  const queued = await conversionsOf(server, org, lead.leadId);
  // Without the card's turn across processes the merge landed first: 409 contact_merged, its conversion queued.
  assert.is(queued, moved.status === 200 ? moved.body.platform_events_queued : 0, `${moved.status} ${JSON.stringify(moved.body)}: ${queued} conversions`);
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.is(moved.body.platform_events_queued, 1);
  assert.is(merged.code, 0, merged.stderr);
  assert.is((await server.request('GET', `/contacts/${fromId}`, { key: org.key })).body.error.code, 'contact_merged');
  const history = (await server.request('GET', `/leads/${lead.leadId}`, { key: org.key })).body;
  assert.equal([history.contact_id, history.stages.map((s: { stage: string; platform_event_queued: boolean }) => [s.stage, s.platform_event_queued])],
    [into.body.id, [['new', false], ['qualified', true]]]);
});

test('ops leads import of a new lead for the person while a stage change is under way: a conversion only for a lead the change moved', async ({ server, org }) => {
  const phone = '600820001';
  const first = await importLead(server, org, { id: '8200001', formId: '82001', phone });
  await flowFor(server, org, '82001', 'contacted', '38200');
  const contactId = first.contactId!;
  assert.is((await server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'sold' } })).status, 200);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'race-import-'));
  const file = path.join(dir, 'leads.json');
  await fs.writeFile(file, JSON.stringify([{
    id: '8200002', created_time: '2025-03-02T10:00:00+0000', form_id: '82001', form_name: 'Spring offer', page_id: 'page-1',
    field_data: [{ name: 'phone_number', values: [phone] }],
  }]));
  let imported!: ReturnType<typeof started<Awaited<ReturnType<typeof runOps>>>>;
  try {
    const moved = await withStageChangeStopped(server,
      () => server.request('POST', `/contacts/${contactId}/stage`, { key: org.key, body: { stage: 'contacted' } }),
      async () => {
        imported = started(runOps(server.db.url, ['leads', 'import', '--org', org.organizationId, '--file', file, '--json']));
        await untilLandedOrWaiting(server, 'the import landing or waiting', () => streamHas(server, `contact-${contactId}`, 'ContactCycleOpened'), imported.ended);
      });
    const done = await imported.promise;
    assert.is(done.code, 0, done.stderr);
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    await server.settle();
    const leads = (await server.request('GET', `/leads?contact=${contactId}`, { key: org.key })).body.data as { id: string; platform_lead_id: string; stages: { stage: string; platform_event_queued: boolean }[] }[];
    assert.is(leads.length, 2);
    let sent = 0;
    for (const lead of leads) {
      const queued = await conversionsOf(server, org, lead.id);
      const inHistory = lead.stages.some((s) => s.stage === 'contacted' && s.platform_event_queued);
      // Without the turn: the first lead's conversion was queued, but the change retried on cycle 2 and moved only the new lead.
      assert.is(queued, inHistory ? 1 : 0, `lead ${lead.platform_lead_id}: ${queued} conversions, history ${JSON.stringify(lead.stages)}`);
      sent += queued;
    }
    assert.is(sent, moved.body.platform_events_queued);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test.run();
