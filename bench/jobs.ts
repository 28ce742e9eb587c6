// `npm run bench -- jobs`: (1) a spend sync of 500 ads over 90 days (45,000 daily rows) from the sandbox
// platform, end to end through the job engine (connect, backfill job, paged and split insights, chunked
// events), beside the plain platform read of the same rows; (2) 1,000 small jobs through the engine
// (enqueued while it runs: numbering, claim, start, success, every transition an event), beside a bare
// SKIP LOCKED queue doing the same claims without events. The service runs its workers as in production.
import { Writable } from 'node:stream';
import { createOrganization } from '../commands/organization/handlers.ts';
import { connectAdAccount } from '../commands/adaccount/handlers.ts';
import { jobStream } from '../commands/job/job.ts';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { Pool } from '../src/db/pool.ts';
import type { Services } from '../src/services.ts';
import { platformConfigFrom } from '../src/platform/graph.ts';
import { fetchDailyAdInsights } from '../src/platform/insights.ts';
import { enqueueJob } from '../src/processes/jobs/enqueue.ts';
import { JobEngine } from '../src/processes/jobs/engine.ts';
import { addDays, dayIn } from '../src/processes/jobs/kinds/days.ts';
import { startSandbox } from '../ops/sandbox/server.ts';
import type { BenchContext } from './run.ts';

const ACCOUNT = 'act_424242';
const TZ = 'Europe/Warsaw';
const WORKERS = 8;

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('bench: timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function jobFinished(services: Services, organizationId: string, number: number): Promise<string | null> {
  const [last] = await services.store.readStream(jobStream(organizationId, number), { direction: 'backwards', maxCount: 1 });
  return last && (last.type === 'JobSucceeded' || last.type === 'JobFailed') ? last.type : null;
}

/** Connect (which queues the 90-day backfill) and wait for the job; seconds from the connect to its end. */
async function spendSync(services: Services, organizationId: string): Promise<{ seconds: number; outcome: string }> {
  const started = performance.now();
  await connectAdAccount(services, { organizationId, account: ACCOUNT, token: 'bench-token' }, { organizationId, actor: 'bench' });
  let outcome: string | null = null;
  await until(async () => (outcome = await jobFinished(services, organizationId, 1)) !== null, 300_000);
  return { seconds: (performance.now() - started) / 1000, outcome: outcome! };
}

async function smallJobs(services: Services, organizationId: string, count: number): Promise<number> {
  let done = 0;
  const engine = new JobEngine(services, { concurrency: WORKERS, pollMs: 200, handlers: { bench_noop: async () => { done += 1; return { summary: 'ok' }; } } });
  await engine.start();
  const started = performance.now();
  let next = 0;
  const enqueuer = async () => {
    while (next < count) {
      const i = next++;
      await enqueueJob(services, { organizationId, kind: 'bench_noop', scope: `item:${i}`, trigger: 'api' }, { organizationId, actor: 'bench' });
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, enqueuer));
  await until(async () => done >= count && engine.active === 0, 300_000);
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return count / seconds;
}

/** The plainest queue: a table, SKIP LOCKED claims and deletes by the same number of workers, no events. */
async function bareQueue(pool: Pool, count: number): Promise<number> {
  await pool.query('CREATE TABLE bench_queue (id serial PRIMARY KEY, payload text NOT NULL)');
  const started = performance.now();
  let next = 0;
  const insert = async () => {
    while (next < count) {
      next++;
      await pool.query("INSERT INTO bench_queue (payload) VALUES ('x')");
    }
  };
  const claim = async () => {
    for (;;) {
      const { rowCount } = await pool.query(
        'DELETE FROM bench_queue WHERE id = (SELECT id FROM bench_queue ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id');
      if (rowCount === 0 && next >= count) return;
    }
  };
  await Promise.all([...Array.from({ length: WORKERS }, insert), ...Array.from({ length: WORKERS }, claim)]);
  return count / ((performance.now() - started) / 1000);
}

export async function run(ctx: BenchContext): Promise<void> {
  const ads = Math.max(10, Math.round(500 * ctx.scale));
  const jobs = Math.max(50, Math.round(1000 * ctx.scale));
  const sandbox = await startSandbox();
  const db = await ctx.freshDatabase('jobs');
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PLATFORM_API_URL: sandbox.url, JOB_SPEND_BACKFILL_DAYS: '90', JOB_POLL: '200ms' });
  const booted = await boot(config, { log: createLogger('info', {}, sink), poolSize: 40 });
  try {
    await booted.startWorkers();
    const { services } = booted;
    const org = await createOrganization(services.store, { name: 'Bench org' }, new Date());
    const today = dayIn(TZ, new Date());
    sandbox.seedAdAccount({ id: ACCOUNT, currency: 'PLN', timezoneName: TZ });
    const served = sandbox.generateInsights(ACCOUNT, { ads, days: 90, since: addDays(today, -89) });

    ctx.note(`plain platform read of ${served.rows} daily rows (${ads} ads x 90 days)`);
    const readStarted = performance.now();
    const read = await fetchDailyAdInsights(platformConfigFrom(config), { account: ACCOUNT, token: 'bench-token', since: addDays(today, -89), until: today });
    const readRate = (read.kind === 'ok' ? read.value.length : 0) / ((performance.now() - readStarted) / 1000);

    ctx.note('spend sync through the job engine (connect -> backfill job -> events)');
    const sync = await spendSync(services, org.id);
    ctx.note(`spend sync ${sync.outcome} in ${sync.seconds.toFixed(1)} s; letting the creative follow-up finish`);
    await until(async () => (await services.pool.query('SELECT 1 FROM job_queue WHERE organization_id = $1', [org.id])).rowCount === 0, 300_000);

    ctx.note(`${jobs} small jobs through the engine (${WORKERS} enqueuers, ${WORKERS} slots), then the bare queue`);
    const engineRate = await smallJobs(services, org.id, jobs);
    const bareRate = await bareQueue(db.pool, jobs);
    ctx.table('jobs', [
      { name: `spend sync, ${served.rows} rows`, value: served.rows / sync.seconds, unit: 'rows/s', baseline: { name: 'plain platform read', value: readRate }, target: `< 30 s (took ${sync.seconds.toFixed(1)} s)` },
      { name: `${jobs} small jobs`, value: engineRate, unit: 'jobs/s', baseline: { name: 'bare SKIP LOCKED queue', value: bareRate }, target: '>= 200 jobs/s' },
    ]);
  } finally {
    await booted.shutdown();
    await sandbox.stop();
  }
}
