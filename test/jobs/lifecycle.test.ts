import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { cancelJob, enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { ApiError } from '../../commands/shared/errors.ts';
import { gate, jobEvents, jobWhen, startEngine } from './support/jobs.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Jobs: progress, cancellation and dead workers');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ JOB_RETRY_SCHEDULE: '100ms', JOB_MAX_ATTEMPTS: '3', JOB_POLL: '50ms', JOB_LEASE: '600ms', JOB_PROGRESS_EVERY: '1h' });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const operator = (organizationId: string) => ({ organizationId, actor: 'operator' });
const queue = (server: TestServer, org: TestOrg, kind: string, scope = 'org') =>
  enqueueJob(server.services, { organizationId: org.organizationId, kind, scope, trigger: 'operator' }, operator(org.organizationId));

async function readJob(server: TestServer, org: TestOrg, number: number, ready: (job: any) => boolean) {
  await jobWhen(server.services, org.organizationId, number, ready);
  const res = await server.request('GET', `/jobs/${number}`, { key: org.key });
  assert.is(res.status, 200);
  return res.body;
}

test('progress shows while the job runs, throttled, and its last value is kept', async ({ server, org }) => {
  const release = gate();
  const { number } = await queue(server, org, 'test_progress');
  const engine = await startEngine(server.services, {
    handlers: {
      test_progress: async (ctx) => {
        for (let i = 1; i <= 5; i++) ctx.progress(i, `${i} of 500 rows`);
        await release.promise;
        for (let i = 6; i <= 500; i++) ctx.progress(i, `${i} of 500 rows`);
        return { summary: '500 rows' };
      },
    },
  });
  try {
    const running = await readJob(server, org, number, (j) => j.status === 'running' && j.progress.done >= 1);
    assert.equal(running.progress, { done: 1, text: '1 of 500 rows' }, 'the first report is written at once');
    assert.ok(running.started_at);
    release.open();
    const done = await readJob(server, org, number, (j) => j.status === 'done');
    assert.equal(done.progress, { done: 500, text: '500 of 500 rows' });
    assert.is(done.summary, '500 rows');
    const progressed = (await jobEvents(server.services, org.organizationId, number)).filter((e) => e.type === 'JobProgressed');
    assert.is(progressed.length, 2, 'one report at the start, the final one at the end (JOB_PROGRESS_EVERY=1h)');
  } finally {
    await engine.stop();
  }
});

test('a queued job and a running job can be cancelled; a finished or unknown one cannot', async ({ server, org }) => {
  const queued = await queue(server, org, 'test_never_claimed');
  await cancelJob(server.services, org.organizationId, queued.number, operator(org.organizationId));
  assert.is((await readJob(server, org, queued.number, (j) => j.status === 'cancelled')).finished_at !== null, true);

  const sawAbort = gate<string>();
  const running = await queue(server, org, 'test_cancel');
  const engine = await startEngine(server.services, {
    handlers: {
      test_cancel: (ctx) => new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => { sawAbort.open('aborted'); reject(new Error('stopped')); });
      }),
    },
  });
  try {
    await readJob(server, org, running.number, (j) => j.status === 'running');
    await cancelJob(server.services, org.organizationId, running.number, operator(org.organizationId));
    assert.is(await sawAbort.promise, 'aborted', 'the handler is told to stop');
    await readJob(server, org, running.number, (j) => j.status === 'cancelled');
    await eventually('the worker to let go', async () => engine.active === 0);
    const types = (await jobEvents(server.services, org.organizationId, running.number)).map((e) => e.type);
    assert.equal(types, ['JobQueued', 'JobStarted', 'JobCancelled'], 'no failure is recorded after the cancellation');
  } finally {
    await engine.stop();
  }
  const codeOf = (p: Promise<unknown>) => p.then(() => 'none', (e: ApiError) => e.code);
  assert.is(await codeOf(cancelJob(server.services, org.organizationId, running.number, operator(org.organizationId))), 'conflict');
  assert.is(await codeOf(cancelJob(server.services, org.organizationId, 9999, operator(org.organizationId))), 'not_found');
});

test('a running job stops as soon as it is cancelled, not at its worker\'s next lease extension a third of JOB_LEASE later', async ({ server, org }) => {
  const sawAbort = gate<number>();
  const running = await queue(server, org, 'test_cancel_now');
  // A lease of a minute (the default is two): the worker extends it, and used to notice a cancellation, every 20 s.
  const engine = await startEngine(server.services, {
    leaseMs: 60_000,
    handlers: {
      test_cancel_now: (ctx) => new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => { sawAbort.open(Date.now()); reject(new Error('stopped')); });
      }),
    },
  });
  try {
    await readJob(server, org, running.number, (j) => j.status === 'running');
    const cancelledAt = Date.now();
    await cancelJob(server.services, org.organizationId, running.number, operator(org.organizationId));
    const abortedAt = await Promise.race([sawAbort.promise, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 5000))]);
    assert.ok(abortedAt - cancelledAt < 5000, 'the handler is told to stop within seconds');
    await eventually('the worker to let go', async () => engine.active === 0);
    const types = (await jobEvents(server.services, org.organizationId, running.number)).map((e) => e.type);
    assert.equal(types, ['JobQueued', 'JobStarted', 'JobCancelled']);
  } finally {
    await engine.stop();
  }
});

test('a job whose worker is killed returns to the queue when its lease expires and finishes', async ({ server, org }) => {
  const { number } = await queue(server, org, 'test_killed');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'support/hanging-worker.ts'), server.db.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => { if (chunk.toString().includes('started')) resolve(); });
    child.on('exit', (code) => reject(new Error(`the worker exited early (${code})`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const first = await readJob(server, org, number, (j) => j.status === 'running');
  assert.is(first.attempts, 1);

  const engine = await startEngine(server.services, { handlers: { test_killed: async (ctx) => ({ summary: `finished on attempt ${ctx.attempt}` }) } });
  try {
    const done = await readJob(server, org, number, (j) => j.status === 'done');
    assert.equal([done.attempts, done.summary], [2, 'finished on attempt 2']);
    const events = await jobEvents(server.services, org.organizationId, number);
    assert.equal(events.map((e) => e.type), ['JobQueued', 'JobStarted', 'JobRetryScheduled', 'JobStarted', 'JobSucceeded']);
    assert.match(events[2].data.error, /lease expired/);
    assert.is(events[2].data.attempts, 1, 'the dead worker\'s attempt counts');
  } finally {
    await engine.stop();
  }
});

test('a worker that stops gives its running job back, to run again at once', async ({ server, org }) => {
  const { number } = await queue(server, org, 'test_stopped');
  const engine = await startEngine(server.services, {
    handlers: { test_stopped: (ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('interrupted')))) },
  });
  await readJob(server, org, number, (j) => j.status === 'running');
  await engine.stop();
  const queued = await readJob(server, org, number, (j) => j.status === 'queued');
  assert.match(queued.error, /worker stopped/);
  const events = await jobEvents(server.services, org.organizationId, number);
  assert.equal(events.map((e) => e.type), ['JobQueued', 'JobStarted', 'JobRetryScheduled']);
  assert.is(events[2].data.runAfter, events[2].data.at, 'it may run again at once');
});

test('a worker that stops gives back a job on its last attempt too: the stop is no fault of the job', async ({ server, org }) => {
  const { number } = await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'test_stopped_last', scope: 'org', trigger: 'operator', maxAttempts: 1 },
    operator(org.organizationId));
  const engine = await startEngine(server.services, {
    handlers: { test_stopped_last: (ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('interrupted')))) },
  });
  await readJob(server, org, number, (j) => j.status === 'running');
  await engine.stop();
  const queued = await readJob(server, org, number, (j) => j.status !== 'running');
  assert.equal([queued.status, queued.finished_at], ['queued', null], 'given back, not failed');
  assert.match(queued.error, /worker stopped/);

  const next = await startEngine(server.services, { handlers: { test_stopped_last: async (ctx) => ({ summary: `finished on attempt ${ctx.attempt}` }) } });
  try {
    const done = await readJob(server, org, number, (j) => j.status === 'done');
    assert.equal([done.attempts, done.summary, done.error], [2, 'finished on attempt 2', '']);
  } finally {
    await next.stop();
  }
});

test.run();
