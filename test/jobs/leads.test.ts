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

test('an operator run from a later day is no watermark: the next scheduled run reads from the last success before it', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-gap', pageId: 'pg-513', name: 'Gap form' });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-513', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  await importJobs(server, org, 1);
  const scope = 'page:pg-513';
  const realNow = server.services.now;
  try {
    // Three hours later: a lead came an hour after the backfill, then the operator re-read from tomorrow only.
    server.services.now = () => new Date(Date.now() + 3 * 3_600_000);
    seedLead(sandbox, '9513001', 'f-gap', -3_600_000);
    const tomorrow = new Date(Date.now() + 3 * 3_600_000 + DAY).toISOString().slice(0, 10);
    await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope, trigger: 'operator', params: { since: tomorrow } }, { organizationId: org.organizationId, actor: 'test' });
    const [operator] = await importJobs(server, org, 2);
    assert.match(operator.summary, /: 0 new, 0 already known$/);
    await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope, trigger: 'schedule' }, { organizationId: org.organizationId, actor: 'test' });
    const [scheduled] = await importJobs(server, org, 3);
    // It used to read from the operator run's start (less 15 minutes) and skip the lead for good.
    assert.match(scheduled.summary, /^1 form, 1 leads since .*: 1 new, 0 already known$/, scheduled.summary);
  } finally {
    server.services.now = realNow;
  }
});

test('--since is a day in the organisation\'s zone with its summer time: CET in July starts at 22:00Z', async ({ server, sandbox }) => {
  // PostgreSQL's AT TIME ZONE, used before, read CET as the fixed abbreviation +01:00 (23:00Z), an hour off the
  // day GET /leads and the reports count.
  const org = await server.newOrganization({ timezone: 'CET' });
  sandbox.seedForm({ id: 'f-cet', pageId: 'pg-512', name: 'CET form' });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-512', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  await importJobs(server, org, 1);
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: 'page:pg-512', trigger: 'operator', params: { since: '2026-07-01' } }, { organizationId: org.organizationId, actor: 'test' });
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

test('a lead of a page that cannot be read is named in the summary and the progress; the page\'s other leads are imported', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-mixed', pageId: 'pg-502', name: 'Mixed form' });
  for (let i = 1; i <= 3; i++) seedLead(sandbox, `950000${i}`, 'f-mixed', i * 60_000);
  // Leads the platform sends in shapes no lead can be made of: an answer that is no text, a time that is no time.
  const nullAnswer = sandbox.seedLead({ id: '9500004', formId: 'f-mixed', createdTime: new Date(Date.now() - 4 * 60_000).toISOString(), answers: { email: 'x@example.com' } });
  nullAnswer.field_data = [{ name: 'email', values: [null as unknown as string] }];
  const badTime = sandbox.seedLead({ id: '9500005', formId: 'f-mixed', createdTime: new Date(Date.now() - 5 * 60_000).toISOString(), answers: { email: 'y@example.com' } });
  badTime.created_time = 'yesterday';

  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-502', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  const [job] = await importJobs(server, org, 1);
  assert.is(job.status, 'done', job.error);
  assert.is(job.attempts, 1, 'not retried: the same leads would be unreadable again');
  assert.match(job.summary, /^1 form, 5 leads since .*: 3 new, 0 already known; 2 refused: /, job.summary);
  assert.match(job.summary, /9500004 \(unreadable: field_data email: a value is null, not text\)/);
  assert.match(job.summary, /9500005 \(unreadable: created_time "yesterday" is not a date-time\)/);
  assert.equal(job.progress, { done: 5, text: '5 leads read, 3 new, 2 not stored' });
  await server.settle();
  const imported = await leads(server, org);
  assert.equal(imported.map((l) => l.platform_lead_id).sort(), ['9500001', '9500002', '9500003']);
});

test('a lead that cannot be stored fails the run after the page\'s other leads are in, naming it; a later run brings it', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-stuck', pageId: 'pg-503', name: 'Stuck form' });
  for (let i = 1; i <= 3; i++) seedLead(sandbox, `960000${i}`, 'f-stuck', i * 60_000);
  // The database refuses this one lead's append (a fault of PostgreSQL's own, not a refusal of the intake).
  await server.services.pool.query(`CREATE FUNCTION refuse_lead_9600002() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.event_type = 'LeadReceived' AND NEW.data->>'platformLeadId' = '9600002' THEN RAISE EXCEPTION 'disk trouble'; END IF; RETURN NEW; END $$`);
  await server.services.pool.query('CREATE TRIGGER refuse_lead_9600002 BEFORE INSERT ON es_events FOR EACH ROW EXECUTE FUNCTION refuse_lead_9600002()');
  try {
    await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-503', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
    const [job] = await importJobs(server, org, 1);
    assert.is(job.status, 'failed', JSON.stringify(job));
    assert.match(job.error ?? '', /^1 leads could not be stored \(9600002\), the others are in; 1 form, 3 leads since .*: 0 new, 2 already known$/, job.error);
    assert.is(job.attempts, 4, 'retried, as an unexpected fault may pass; the last attempt found the other two in');
    await server.settle();
    assert.equal((await leads(server, org)).map((l) => l.platform_lead_id).sort(), ['9600001', '9600003']);
  } finally {
    await server.services.pool.query('DROP TRIGGER refuse_lead_9600002 ON es_events; DROP FUNCTION refuse_lead_9600002()');
  }
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'lead_import', scope: 'page:pg-503', trigger: 'operator' }, { organizationId: org.organizationId, actor: 'test' });
  const [again] = await importJobs(server, org, 2);
  assert.is(again.status, 'done', again.error);
  assert.match(again.summary, /: 1 new, 2 already known$/);
});

test('a form the platform stops halfway through does not cost the page\'s other forms: they are imported and the run retried for it; a form refused for good is named, not retried', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-first', pageId: 'pg-504', name: 'First form' });
  sandbox.seedForm({ id: 'f-gone', pageId: 'pg-504', name: 'Gone form' });
  sandbox.seedForm({ id: 'f-last', pageId: 'pg-504', name: 'Last form' });
  for (let i = 0; i < 150; i++) seedLead(sandbox, `9700${String(i).padStart(3, '0')}`, 'f-first', (i + 1) * 60_000);
  seedLead(sandbox, '9710001', 'f-gone', 60_000);
  seedLead(sandbox, '9720001', 'f-last', 60_000);
  // The first form's second page fails (the platform's transient error, on each of the client's three tries); the second form is refused on every call.
  sandbox.injectFailures({ match: '/f-first/leads', count: 3, skip: 1 });
  sandbox.injectFailures({ match: '/f-gone/leads', count: 100, status: 400, code: 100, message: 'Unsupported get request', transient: false });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-504', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  const [job] = await importJobs(server, org, 1);
  assert.is(job.status, 'done', job.error);
  assert.is(job.attempts, 2, 'the halfway failure was retried');
  assert.match(job.summary, /^3 forms, 151 leads since .*: 50 new, 101 already known; the platform refused the leads of form f-gone: .*Unsupported get request/);
  const events = await server.services.store.readStream(`job-${org.organizationId}-${job.number}`);
  const retry = events.find((e) => e.type === 'JobRetryScheduled')!.data as { error: string };
  assert.match(retry.error, /^the platform failed on the leads of form f-first halfway through: .*; the platform refused the leads of form f-gone: .*; the other forms' leads are in; 3 forms, 101 leads since .*: 101 new, 0 already known$/, retry.error);
  await server.settle();
  const ids = (await leads(server, org)).map((l) => l.platform_lead_id);
  assert.is(ids.length, 151);
  assert.ok(ids.includes('9720001'), 'the form after the refused one is imported');
});

test('a store that refuses every lead (an outage) stops the run after 10 such leads instead of trying each lead of the page', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-outage', pageId: 'pg-505', name: 'Outage form' });
  for (let i = 0; i < 40; i++) seedLead(sandbox, `9800${String(i).padStart(3, '0')}`, 'f-outage', (i + 1) * 60_000);
  await server.services.pool.query(`CREATE FUNCTION refuse_leads_98() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.event_type = 'LeadReceived' AND NEW.data->>'platformLeadId' LIKE '9800%' THEN RAISE EXCEPTION 'disk trouble'; END IF; RETURN NEW; END $$`);
  await server.services.pool.query('CREATE TRIGGER refuse_leads_98 BEFORE INSERT ON es_events FOR EACH ROW EXECUTE FUNCTION refuse_leads_98()');
  try {
    await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-505', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
    const [job] = await importJobs(server, org, 1);
    assert.is(job.status, 'failed');
    assert.match(job.error ?? '', /^10 leads could not be stored \((9800\d{3}, ){9}9800\d{3}\); stopped after \d+ leads read, the leads before are in$/);
  } finally {
    await server.services.pool.query('DROP TRIGGER refuse_leads_98 ON es_events; DROP FUNCTION refuse_leads_98()');
  }
});

test('a page whose forms the platform fails on for now is retried, and the error says the platform failed, not that it refused', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  sandbox.seedForm({ id: 'f-later', pageId: 'pg-506', name: 'Later form' });
  seedLead(sandbox, '9900001', 'f-later', 60_000);
  sandbox.injectFailures({ match: '/pg-506/leadgen_forms', count: 3 });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-506', token: 'page-token' }, server.services.secrets.encryptionKey, new Date());
  const [job] = await importJobs(server, org, 1);
  assert.is(job.status, 'done', job.error);
  const retry = (await server.services.store.readStream(`job-${org.organizationId}-${job.number}`)).find((e) => e.type === 'JobRetryScheduled')!.data as { error: string };
  assert.match(retry.error, /^the platform failed on the forms of page pg-506: An unexpected error/);
});

test.run();
