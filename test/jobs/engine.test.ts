import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { JobError } from '../../src/processes/jobs/handler.ts';
import { jobCounterStream } from '../../commands/job/job.ts';
import { jobEvents, jobWhen, startEngine } from './support/jobs.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Jobs: the engine');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ JOB_RETRY_SCHEDULE: '150ms,300ms', JOB_MAX_ATTEMPTS: '3', JOB_POLL: '50ms' });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const operator = (organizationId: string) => ({ organizationId, actor: 'operator' });

async function jobOf(server: TestServer, org: TestOrg, number: number, status: string) {
  await jobWhen(server.services, org.organizationId, number, (j) => j.status === status);
  const res = await server.request('GET', `/jobs/${number}`, { key: org.key });
  assert.is(res.status, 200);
  return res.body;
}

test('numbers are a sequence per organisation without gaps, even when enqueued at once', async ({ server, org }) => {
  const other = await server.newOrganization();
  const enqueue = (organizationId: string, i: number) =>
    enqueueJob(server.services, { organizationId, kind: 'test_idle', scope: `item:${i}`, trigger: 'api' }, operator(organizationId));
  const [mine, theirs] = await Promise.all([
    Promise.all(Array.from({ length: 20 }, (_, i) => enqueue(org.organizationId, i))),
    Promise.all(Array.from({ length: 5 }, (_, i) => enqueue(other.organizationId, i))),
  ]);
  assert.equal(mine.map((j) => j.number).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal(theirs.map((j) => j.number).sort((a, b) => a - b), [1, 2, 3, 4, 5]);
  const counter = await server.services.store.readStream(jobCounterStream(org.organizationId));
  assert.is(counter.length, 20);
  assert.equal(counter.map((e) => (e.data as { number: number }).number), Array.from({ length: 20 }, (_, i) => i + 1));
});

test('the same kind and scope is not queued twice while one is queued or running', async ({ server, org }) => {
  const input = { organizationId: org.organizationId, kind: 'test_once', scope: 'account:act_9', trigger: 'operator' as const };
  const first = await enqueueJob(server.services, input, operator(org.organizationId));
  const again = await Promise.all([1, 2, 3].map(() => enqueueJob(server.services, { ...input, trigger: 'schedule' }, operator(org.organizationId))));
  assert.ok(first.created);
  for (const j of again) assert.equal([j.number, j.created], [first.number, false]);
  const other = await enqueueJob(server.services, { ...input, scope: 'account:act_10' }, operator(org.organizationId));
  assert.ok(other.created);
  assert.is.not(other.number, first.number);

  const engine = await startEngine(server.services, { handlers: { test_once: async () => ({ summary: 'ok' }) } });
  try {
    await jobOf(server, org, first.number, 'done');
    const later = await enqueueJob(server.services, input, operator(org.organizationId));
    assert.ok(later.created, 'a finished job does not block the next one');
    await jobOf(server, org, later.number, 'done');
  } finally {
    await engine.stop();
  }
});

test('user jobs run before background jobs, each in queue order', async ({ server, org }) => {
  const ran: string[] = [];
  const queue = async (scope: string, trigger: 'schedule' | 'operator') =>
    (await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'test_order', scope, trigger }, operator(org.organizationId))).number;
  await queue('bg1', 'schedule');
  await queue('bg2', 'schedule');
  await queue('user1', 'operator');
  await queue('bg3', 'schedule');
  const last = await queue('user2', 'operator');
  const engine = await startEngine(server.services, {
    concurrency: 1,
    handlers: { test_order: async (ctx) => { ran.push(ctx.scope); return { summary: ctx.scope }; } },
  });
  try {
    await eventually('five jobs', async () => ran.length === 5);
    assert.equal(ran, ['user1', 'user2', 'bg1', 'bg2', 'bg3']);
    const job = await jobOf(server, org, last, 'done');
    assert.is(job.priority, 'user');
    assert.is(job.trigger, 'operator');
  } finally {
    await engine.stop();
  }
});

test('a failing job is retried with back-off, then stays failed with its error', async ({ server, org }) => {
  const { number } = await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'test_fail', scope: 'org', trigger: 'api' }, operator(org.organizationId));
  const engine = await startEngine(server.services, {
    handlers: { test_fail: async (ctx) => { throw new Error(`boom on attempt ${ctx.attempt}`); } },
  });
  try {
    const job = await jobOf(server, org, number, 'failed');
    assert.is(job.attempts, 3);
    assert.is(job.error, 'boom on attempt 3');
    assert.ok(job.finished_at);
    const events = await jobEvents(server.services, org.organizationId, number);
    assert.equal(events.map((e) => e.type), ['JobQueued', 'JobStarted', 'JobRetryScheduled', 'JobStarted', 'JobRetryScheduled', 'JobStarted', 'JobFailed']);
    const [r1, r2] = events.filter((e) => e.type === 'JobRetryScheduled').map((e) => e.data);
    assert.is(Date.parse(r1.runAfter) - Date.parse(r1.at), 150);
    assert.is(Date.parse(r2.runAfter) - Date.parse(r2.at), 300);
    assert.is(r1.error, 'boom on attempt 1');
    const starts = events.filter((e) => e.type === 'JobStarted').map((e) => e.data);
    assert.equal(starts.map((s) => s.attempt), [1, 2, 3]);
    assert.ok(Date.parse(starts[1].startedAt) >= Date.parse(r1.runAfter), 'the retry waited for its run_after');
    assert.ok(Date.parse(starts[2].startedAt) >= Date.parse(r2.runAfter));
  } finally {
    await engine.stop();
  }
});

test('a job that fails once succeeds on its retry; a permanent failure is not retried', async ({ server, org }) => {
  const flaky = await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'test_flaky', scope: 'org', trigger: 'api' }, operator(org.organizationId));
  const refused = await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'test_refused', scope: 'org', trigger: 'api' }, operator(org.organizationId));
  const engine = await startEngine(server.services, {
    handlers: {
      test_flaky: async (ctx) => {
        if (ctx.attempt === 1) throw new JobError('platform busy');
        return { summary: 'second time lucky' };
      },
      test_refused: async () => { throw new JobError('token expired', true); },
    },
  });
  try {
    const done = await jobOf(server, org, flaky.number, 'done');
    assert.equal([done.attempts, done.error, done.summary], [2, '', 'second time lucky']);
    const failed = await jobOf(server, org, refused.number, 'failed');
    assert.equal([failed.attempts, failed.error], [1, 'token expired']);
  } finally {
    await engine.stop();
  }
});

test.run();
