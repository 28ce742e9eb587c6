// contact.created and lead.created as a subscriber receives them for people and leads that come through the
// platform: the leadgen webhook (pending, then fetched) and the lead_import job, against the sandbox platform.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { finishedJobs } from '../jobs/support/jobs.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, drained, pushesTo, subscribe } from './support/hooks.ts';

const APP_SECRET = 'app-secret-for-lead-routes';
const PAGE = 'page-lr';
const FORM = 'form-lr';

const test = suite<{ server: TestServer; sandbox: Sandbox; receiver: Receiver; org: TestOrg }>('Webhooks: contact.created and lead.created of platform leads');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, PLATFORM_APP_SECRET: APP_SECRET, DELIVERY_RETRY_SCHEDULE: '100ms', JOB_POLL: '50ms' });
  ctx.receiver = await startReceiver((_push, res) => res.writeHead(200).end());
  ctx.org = await ctx.server.newOrganization();
  ctx.sandbox.seedPage({ id: PAGE, name: 'Clinic' });
  ctx.sandbox.seedForm({ id: FORM, pageId: PAGE, name: 'Route form' });
  await connectPage(ctx.server.services.store, { organizationId: ctx.org.organizationId, pageId: PAGE, token: 'page-token' }, ctx.server.services.secrets.encryptionKey, new Date());
  // The backfill import that connecting queues is over before a test seeds its leads.
  await finishedJobs(ctx.server.services, ctx.org.organizationId, 'lead_import', 1);
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
  await ctx.receiver.close();
});

async function notify(server: TestServer, leadId: string): Promise<void> {
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: PAGE, formId: FORM, leadId, createdTime: new Date().toISOString() }));
  const res = await fetch(`${server.origin}/platform/webhook`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(APP_SECRET, raw) }, body: raw,
  });
  assert.is(res.status, 200);
}

async function leadOf(server: TestServer, org: TestOrg, platformLeadId: string) {
  const { rows } = await server.services.pool.query<{ id: string }>('SELECT id FROM leads WHERE organization_id = $1 AND platform_lead_id = $2', [org.organizationId, platformLeadId]);
  return rows.length ? (await server.request('GET', `/leads/${rows[0].id}`, { key: org.key })).body : null;
}

test('a lead whose fetch failed gets its person when the lead_import job brings it: contact.created and lead.created once', async ({ server, sandbox, receiver, org }) => {
  await subscribe(server, org, receiver.url('/failed-then-imported'), ['contact.created', 'lead.created']);
  // The platform does not show the lead yet: the fetch is refused for good.
  await notify(server, 'LR-1');
  const failed = await eventually('the fetch to fail', async () => (await leadOf(server, org, 'LR-1'))?.fetch_status === 'failed');
  assert.ok(failed);
  sandbox.seedLead({ id: 'LR-1', formId: FORM, createdTime: new Date().toISOString(), answers: { full_name: 'Late Lead', email: 'late-lead@example.com' } });
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: `page:${PAGE}`, trigger: 'operator' }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finishedJobs(server.services, org.organizationId, 'lead_import', 2);
  assert.is(job.status, 'done', job.error);
  assert.match(job.summary, /: 0 new, 1 completed, 0 already known$/, 'the summary counts the lead it completed');
  await drained(server, org.organizationId);

  const lead = await leadOf(server, org, 'LR-1');
  assert.equal([lead.fetch_status, lead.form_name, typeof lead.contact_id], ['ready', 'Route form', 'string']);
  const bodies = pushesTo(receiver.received, '/failed-then-imported').map(bodyOf);
  assert.equal(bodies.map((b) => b.type).sort(), ['contact.created', 'lead.created']);
  assert.equal(bodies.find((b) => b.type === 'contact.created')!.data, { contact_id: lead.contact_id, stage: 'new', first_source: 'Route form' });
  assert.equal(bodies.find((b) => b.type === 'lead.created')!.data.lead_id, lead.id);
});

test('a lead announced twice and imported again is one person and one lead: one contact.created, one lead.created', async ({ server, sandbox, receiver, org }) => {
  await subscribe(server, org, receiver.url('/announced-twice'), ['contact.created', 'lead.created']);
  sandbox.seedLead({ id: 'LR-2', formId: FORM, createdTime: new Date().toISOString(), answers: { full_name: 'Twice', email: 'twice-lr@example.com' } });
  await Promise.all([notify(server, 'LR-2'), notify(server, 'LR-2')]);
  await eventually('the lead to be fetched', async () => (await leadOf(server, org, 'LR-2'))?.fetch_status === 'ready');
  await notify(server, 'LR-2');
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: `page:${PAGE}`, trigger: 'operator' }, { organizationId: org.organizationId, actor: 'test' });
  await finishedJobs(server.services, org.organizationId, 'lead_import', 3);
  await drained(server, org.organizationId);

  const lead = await leadOf(server, org, 'LR-2');
  const bodies = pushesTo(receiver.received, '/announced-twice').map(bodyOf);
  assert.equal(bodies.map((b) => [b.type, b.data.contact_id]).sort(), [['contact.created', lead.contact_id], ['lead.created', lead.contact_id]]);
});

test.run();
