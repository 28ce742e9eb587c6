// `npm run bench -- jobs`: (1) a spend sync of 500 ads over 90 days (45,000 daily rows) from the sandbox
// platform, end to end through the job engine (connect, backfill job, paged and split insights, chunked
// events), beside the plain platform read of the same rows; (2) 1,000 small jobs through the engine
// (queued in batches, then claimed, started and finished, every transition an event), beside a bare
// SKIP LOCKED queue doing the same inserts and claims without events. The service runs its workers as in production.
import { Writable } from 'node:stream';
import { createOrganization } from '../commands/organization/handlers.ts';
import { connectAdAccount } from '../commands/adaccount/handlers.ts';
import { jobStream } from '../commands/job/job.ts';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { projectors } from '../src/projections/all.ts';
import type { Pool } from '../src/db/pool.ts';
import type { Services } from '../src/services.ts';
import { platformConfigFrom } from '../src/platform/graph.ts';
import { fetchDailyAdInsights } from '../src/platform/insights.ts';
import { enqueueJobs } from '../src/processes/jobs/enqueue.ts';
import { JobEngine } from '../src/processes/jobs/engine.ts';
import { addDays, dayIn } from '../src/processes/jobs/kinds/days.ts';
import { startSandbox, type Sandbox } from '../ops/sandbox/server.ts';
import type { BenchContext, Figure } from './run.ts';

const ACCOUNT = 'act_424242';
const TZ = 'Europe/Warsaw';
const WORKERS = 8;
/** Job slots of the measured engine: small jobs are cheap, so one worker runs many at once. */
const SLOTS = 16;

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

/** Enqueue in batches of 100 (as a bulk producer would), then let the engine run them; rates of both. */
async function smallJobs(services: Services, organizationId: string, count: number): Promise<{ enqueue: number; run: number; endToEnd: number }> {
  const started = performance.now();
  for (let first = 0; first < count; first += 100) {
    const batch = Array.from({ length: Math.min(100, count - first) }, (_, i) => ({ organizationId, kind: 'bench_noop', scope: `item:${first + i}`, trigger: 'api' as const }));
    await enqueueJobs(services, organizationId, batch, { organizationId, actor: 'bench' });
  }
  const queued = performance.now();
  let done = 0;
  const engine = new JobEngine(services, { concurrency: SLOTS, pollMs: 200, handlers: { bench_noop: async () => { done += 1; return { summary: 'ok' }; } } });
  await engine.start();
  await until(async () => done >= count && engine.active === 0, 300_000);
  const finished = performance.now();
  await engine.stop();
  return { enqueue: count / ((queued - started) / 1000), run: count / ((finished - queued) / 1000), endToEnd: count / ((finished - started) / 1000) };
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

interface Service {
  services: Services;
  pool: Pool;
  organizationId: string;
  shutdown(): Promise<void>;
}

/** The service on a fresh database: with its workers (every projector and process manager) or without. */
async function service(ctx: BenchContext, label: string, sandboxUrl: string, workers: boolean): Promise<Service> {
  const db = await ctx.freshDatabase(label);
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PLATFORM_API_URL: sandboxUrl, JOB_SPEND_BACKFILL_DAYS: '90', JOB_POLL: '200ms' });
  const booted = await boot(config, { log: createLogger('info', {}, sink), poolSize: 40 });
  if (workers) await booted.startWorkers();
  const org = await createOrganization(booted.services.store, { name: 'Bench org' }, new Date());
  let down: Promise<void> | null = null;
  return { services: booted.services, pool: db.pool, organizationId: org.id, shutdown: () => (down ??= booted.shutdown()) };
}

async function spendFigures(ctx: BenchContext, sandbox: Sandbox, live: Service, ads: number): Promise<Figure> {
  const today = dayIn(TZ, new Date());
  sandbox.seedAdAccount({ id: ACCOUNT, currency: 'PLN', timezoneName: TZ });
  const served = sandbox.generateInsights(ACCOUNT, { ads, days: 90, since: addDays(today, -89) });
  ctx.note(`plain platform read of ${served.rows} daily rows (${ads} ads x 90 days)`);
  const readStarted = performance.now();
  const read = await fetchDailyAdInsights(platformConfigFrom(live.services.config), { account: ACCOUNT, token: 'bench-token', since: addDays(today, -89), until: today });
  const readRate = (read.kind === 'ok' ? read.value.length : 0) / ((performance.now() - readStarted) / 1000);
  ctx.note('spend sync through the job engine (connect -> backfill job -> events), the service\'s workers running');
  const sync = await spendSync(live.services, live.organizationId);
  ctx.note(`spend sync ${sync.outcome} in ${sync.seconds.toFixed(1)} s; letting the creative follow-up finish`);
  await until(async () => (await live.pool.query('SELECT 1 FROM job_queue WHERE organization_id = $1', [live.organizationId])).rowCount === 0, 300_000);
  return { name: `spend sync, ${served.rows} rows`, value: served.rows / sync.seconds, unit: 'rows/s', baseline: { name: 'plain platform read', value: readRate }, target: `< 30 s (took ${sync.seconds.toFixed(1)} s)` };
}

export async function run(ctx: BenchContext): Promise<void> {
  const ads = Math.max(10, Math.round(500 * ctx.scale));
  const jobs = Math.max(50, Math.round(1000 * ctx.scale));
  const sandbox = await startSandbox();
  const live = await service(ctx, 'jobs', sandbox.url, true);
  let bare: Service | null = null;
  try {
    const spend = await spendFigures(ctx, sandbox, live, ads);
    ctx.note(`${jobs} small jobs: queued in batches of 100, then run by one engine with ${SLOTS} slots, beside the service's workers`);
    const withWorkers = await smallJobs(live.services, live.organizationId, jobs);
    await live.shutdown();
    ctx.note(`${jobs} small jobs again with the engine alone in its process (projectors elsewhere); then the bare queue`);
    bare = await service(ctx, 'jobs_engine', sandbox.url, false);
    const alone = await smallJobs(bare.services, bare.organizationId, jobs);
    const bareRate = await bareQueue(bare.pool, jobs);
    const base = { name: 'bare SKIP LOCKED queue', value: bareRate };
    ctx.table('jobs', [
      spend,
      { name: `${jobs} small jobs run, engine alone`, value: alone.run, unit: 'jobs/s', baseline: base, target: '>= 200 jobs/s' },
      { name: `${jobs} small jobs run, beside ${projectors.length} projectors`, value: withWorkers.run, unit: 'jobs/s', baseline: base },
      { name: `${jobs} small jobs queued (batches of 100)`, value: alone.enqueue, unit: 'jobs/s', baseline: base },
      { name: `${jobs} small jobs, queue and run, engine alone`, value: alone.endToEnd, unit: 'jobs/s', baseline: base },
    ]);
  } finally {
    await live.shutdown();
    await bare?.shutdown();
    await sandbox.stop();
  }
}
