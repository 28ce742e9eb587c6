import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { createSource } from '../../commands/source/handlers.ts';
import { JobScheduler } from '../../src/processes/jobs/scheduler.ts';
import { addSchedule, listSchedules } from '../../src/processes/jobs/schedule-sql.ts';
import type { Services } from '../../src/services.ts';
import { finishedJobs, jobsOf, startEngine } from './support/jobs.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg }>('Jobs: the scheduler');
const HOUR = 3_600_000;

test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  // The server's own scheduler ticks once at start; the test ticks its own instances (a restart is a new instance).
  ctx.server = await startTestServer({
    PLATFORM_API_URL: ctx.sandbox.url, JOB_POLL: '50ms', JOB_SCHEDULER_TICK: '1h', JOB_SPEND_EVERY: '1h', JOB_LEADS_EVERY: '2h', JOB_SHEETS_EVERY: '15m',
  });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

const at = (services: Services, offsetMs: number): Services => ({ ...services, now: () => new Date(Date.now() + offsetMs) });

test('connecting a page or creating a sheet source adds a schedule and queues one first run', async ({ server, sandbox, org }) => {
  sandbox.seedPage({ id: 'pg-77' });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-77', token: 't' }, server.services.secrets.encryptionKey, new Date());
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-77', token: 't2' }, server.services.secrets.encryptionKey, new Date());
  sandbox.seedSheet('s', 'external_id,status\n');
  await createSource(server.services.store, { organizationId: org.organizationId, kind: 'spreadsheet', name: 'S', csvUrl: `${sandbox.url}/sheets/s.csv` }, new Date());
  await createSource(server.services.store, { organizationId: org.organizationId, kind: 'shop', name: 'Shop' }, new Date());
  await finishedJobs(server.services, org.organizationId, 'lead_import', 1);
  await finishedJobs(server.services, org.organizationId, 'sheets_sync', 1);
  const second = new JobScheduler(server.services);
  await second.start();
  await second.stop();
  const jobs = await jobsOf(server.services, org.organizationId);
  assert.equal(jobs.map((j) => `${j.kind}/${j.trigger}/${j.status}`).sort(), ['lead_import/connect/done', 'sheets_sync/connect/done'],
    'one first run each, though the page was connected twice and a second worker read the same events');
  const schedules = await listSchedules(server.services.pool, org.organizationId);
  assert.equal(schedules.map((s) => [s.kind, Number(s.every_ms)]), [['lead_import', 2 * HOUR], ['sheets_sync', 15 * 60_000]]);
});

test('a page connected to another organisation moves its schedule there: the one it left queues no more imports of it', async ({ server, sandbox }) => {
  const [from, to] = [await server.newOrganization(), await server.newOrganization()];
  sandbox.seedPage({ id: 'pg-88' });
  const connect = (org: TestOrg) =>
    connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'pg-88', token: 't' }, server.services.secrets.encryptionKey, new Date());
  await connect(from);
  await finishedJobs(server.services, from.organizationId, 'lead_import', 1);
  await connect(to);
  await finishedJobs(server.services, to.organizationId, 'lead_import', 1);
  assert.equal((await listSchedules(server.services.pool, from.organizationId)).map((s) => s.scope), []);
  assert.equal((await listSchedules(server.services.pool, to.organizationId)).map((s) => s.scope), ['page:pg-88']);
  await new JobScheduler(at(server.services, 3 * HOUR)).tick();
  await server.settle();
  assert.equal((await jobsOf(server.services, from.organizationId)).map((j) => `${j.trigger}/${j.status}`), ['connect/done'], 'no import of a page it no longer has');
  assert.equal((await jobsOf(server.services, to.organizationId)).map((j) => j.trigger).sort(), ['connect', 'schedule']);
});

test('a sheet source without a CSV address (it takes POST /events only) gets no schedule and no failing sheets_sync', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  await createSource(server.services.store, { organizationId: org.organizationId, kind: 'spreadsheet', name: 'Events only' }, new Date());
  // A sheet with an address, created after it: once its first run is done, the scheduler has read both.
  sandbox.seedSheet('later', 'external_id,status\n');
  await createSource(server.services.store, { organizationId: org.organizationId, kind: 'spreadsheet', name: 'Sheet', csvUrl: `${sandbox.url}/sheets/later.csv` }, new Date());
  await finishedJobs(server.services, org.organizationId, 'sheets_sync', 1);
  const jobs = await jobsOf(server.services, org.organizationId);
  assert.equal(jobs.map((j) => `${j.kind}/${j.trigger}/${j.status}`), ['sheets_sync/connect/done']);
  assert.is((await listSchedules(server.services.pool, org.organizationId)).length, 1);
});

test('a due schedule is queued once per interval, never piled up behind a queued run, from the table after a restart', async ({ server, org }) => {
  const scope = 'org';
  await addSchedule(server.services.pool, { organizationId: org.organizationId, kind: 'test_sched', scope, everyMs: HOUR, nextRunAt: new Date(Date.now() - 1000), now: new Date() });
  const count = async () => {
    await server.settle();
    return (await jobsOf(server.services, org.organizationId)).filter((j) => j.kind === 'test_sched');
  };

  await new JobScheduler(server.services).tick();
  const [first] = await count();
  assert.equal([first.trigger, first.priority, first.status], ['schedule', 'background', 'queued']);
  await new JobScheduler(server.services).tick();
  assert.is((await count()).length, 1, 'not due again before its interval');

  await new JobScheduler(at(server.services, 2 * HOUR)).tick();
  assert.is((await count()).length, 1, 'due, but the last run is still queued: no second copy');
  const row = (await listSchedules(server.services.pool, org.organizationId)).find((s) => s.kind === 'test_sched')!;
  assert.ok(row.next_run_at.getTime() > Date.now() + 2 * HOUR, 'moved one interval past the tick');

  const engine = await startEngine(server.services, { handlers: { test_sched: async () => ({ summary: 'ran' }) } });
  try {
    await eventually('the scheduled run', async () => (await count())[0]?.status === 'done');
  } finally {
    await engine.stop();
  }
  await new JobScheduler(at(server.services, 4 * HOUR)).tick();
  const after = await count();
  assert.equal(after.map((j) => j.status).sort(), ['done', 'queued'], 'the next interval queues the next run');
});

test.run();
