import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { finishedJobs, jobsOf } from './support/jobs.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg }>('Jobs: lead_import against the sandbox');
const PAGE = 'pg-501';
const DAY = 86_400_000;

test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, JOB_POLL: '50ms', JOB_RETRY_SCHEDULE: '100ms' });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

function seedLead(sandbox: Sandbox, id: string, formId: string, ageMs: number) {
  sandbox.seedLead({
    id, formId, createdTime: new Date(Date.now() - ageMs).toISOString(),
    ad: { ad_id: 'ad-7', ad_name: 'Ad 7', adset_id: 'as-7', adset_name: 'Set 7', campaign_id: 'cp-7', campaign_name: 'Spring' },
    answers: { full_name: `Person ${id}`, email: `${id}@example.com` },
  });
}

const importJobs = (server: TestServer, org: TestOrg, count: number) => finishedJobs(server.services, org.organizationId, 'lead_import', count);

async function leads(server: TestServer, org: TestOrg): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await server.request('GET', `/leads?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: org.key });
    all.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return all;
}

test('connecting a page backfills the retention window from every form, page by page', async ({ server, sandbox, org }) => {
  sandbox.seedForm({ id: 'f-spring', pageId: PAGE, name: 'Spring form', questions: [{ key: 'full_name', label: 'Imię i nazwisko', type: 'FULL_NAME' }] });
  sandbox.seedForm({ id: 'f-big', pageId: PAGE, name: 'Big form' });
  for (let i = 0; i < 3; i++) seedLead(sandbox, `9100${i}`, 'f-spring', (i + 1) * DAY);
  for (let i = 0; i < 120; i++) seedLead(sandbox, `9200${String(i).padStart(3, '0')}`, 'f-big', 2 * DAY + i * 60_000);
  seedLead(sandbox, '9300001', 'f-spring', 120 * DAY);

  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: PAGE, token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  const [job] = await importJobs(server, org, 1);
  assert.is(job.status, 'done', job.error);
  assert.equal([job.trigger, job.priority], ['connect', 'user']);
  assert.match(job.summary, /^2 forms, 123 leads since .*: 123 new, 0 already known$/);
  assert.ok(sandbox.requestsTo('/f-big/leads') >= 2, 'the form\'s leads came in pages');
  await server.settle();
  const imported = await leads(server, org);
  assert.is(imported.length, 123);
  const one = imported.find((l) => l.platform_lead_id === '91000');
  assert.equal([one.form_name, one.platform_form_id, one.platform_page_id, one.ad?.campaign_id], ['Spring form', 'f-spring', PAGE, 'cp-7']);
  // Answers show the form's questions as the person saw them; a key the form does not list keeps its own label.
  assert.equal(one.answers.map((a: { key: string; label: string }) => [a.key, a.label]), [['full_name', 'Imię i nazwisko'], ['email', 'Email']]);
  assert.not.ok(imported.some((l) => l.platform_lead_id === '9300001'), 'older than the platform keeps leads');
});

test('a later import reads only since the last success, and known leads stay one lead each', async ({ server, sandbox, org }) => {
  seedLead(sandbox, '9400001', 'f-spring', 60_000);
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: `page:${PAGE}`, trigger: 'schedule' }, { organizationId: org.organizationId, actor: 'test' });
  const [latest] = await importJobs(server, org, 2);
  assert.is(latest.status, 'done', latest.error);
  assert.equal([latest.trigger, latest.priority], ['schedule', 'background']);
  assert.match(latest.summary, /^2 forms, 1 leads since .*: 1 new, 0 already known$/);

  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: `page:${PAGE}`, trigger: 'operator', params: { since: '2000-01-01' } }, { organizationId: org.organizationId, actor: 'test' });
  const [again] = await importJobs(server, org, 3);
  // The day starts in the organisation's zone (Europe/Warsaw, UTC+1 in winter), as GET /leads reads days.
  assert.match(again.summary, /^2 forms, 125 leads since 1999-12-31T23:00:00.000Z: 1 new, 124 already known$/, 'only the lead older than the backfill is new');
  await server.settle();
  assert.is((await leads(server, org)).length, 125);
});

test('--since is a day in the organisation\'s zone with its summer time: CET in July starts at 22:00Z', async ({ server, sandbox }) => {
  // PostgreSQL's AT TIME ZONE, used before, read CET as the fixed abbreviation +01:00 (23:00Z), an hour off the
  // day GET /leads and the reports count.
  const org = await server.newOrganization({ timezone: 'CET' });
  sandbox.seedForm({ id: 'f-cet', pageId: 'pg-502', name: 'CET form' });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-502', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  await importJobs(server, org, 1);
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: 'page:pg-502', trigger: 'operator', params: { since: '2026-07-01' } }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await importJobs(server, org, 2);
  assert.match(job.summary, /^1 form, 0 leads since 2026-06-30T22:00:00.000Z: /);
});

test('a page connected to another organisation is not imported for this one', async ({ server, org }) => {
  const other = await server.newOrganization();
  await connectPage(server.services.store, { organizationId: other.organizationId, pageId: PAGE, token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: `page:${PAGE}`, trigger: 'operator' }, { organizationId: org.organizationId, actor: 'test' });
  await eventually('the refused import', async () => (await jobsOf(server.services, org.organizationId)).some((j) => j.status === 'failed'));
  const jobs = (await server.request('GET', '/jobs?status=failed', { key: org.key })).body.data;
  assert.match(jobs[0].error, /not connected to this organisation/);
  assert.is(jobs[0].attempts, 1);
  const theirs = await server.request('GET', '/jobs', { key: other.key });
  assert.ok(theirs.body.data.every((j: any) => j.trigger === 'connect'), 'the other organisation sees only its own backfill');
});

test.run();
