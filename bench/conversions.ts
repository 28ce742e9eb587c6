// `npm run bench -- conversions`: (1) POST /v1/events (one dataset) through the full stack beside GET /v1/me,
// both under 64 connections in the same run; (2) 100,000 queued deliveries (20 datasets) drained by the delivery
// worker to the sandbox platform running in its own process, beside the same batches posted straight to
// the sandbox (no queue, no store): the ceiling the worker is measured against.
// The service runs with its own default pool size, as `npm start` does. CONVERSIONS_PART=http or =drain runs
// one part alone (for iterating).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import autocannon from 'autocannon';
import { acceptConversion } from '../commands/conversion/handlers.ts';
import { boot, type Booted } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { sendConversionBatch } from '../src/platform/conversions.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../src/processes/deliveries/worker.ts';
import { anyQueued, queueDepth } from '../src/processes/deliveries/queue-sql.ts';
import { serveApi } from './_serve.ts';
import type { BenchContext } from './run.ts';
import { postEventBody, setup, type Setup } from './_conversions-setup.ts';

const CONNECTIONS = 64;
const SECONDS = 5;
const DATASETS = 20;

async function load(url: string, options: Partial<autocannon.Options>): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, workers: 1, ...options });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function httpFigures(ctx: BenchContext, booted: Booted, s: Setup): Promise<void> {
  const server = await serveApi(booted.services);
  const base = `${server.url}/v1`;
  const authorization = `Bearer ${s.key}`;
  const body = postEventBody(s.sourceId);
  const post = () => load(`${base}/events`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body, idReplacement: true });
  const me = () => load(`${base}/me`, { headers: { authorization } });
  try {
    ctx.note(`POST /v1/events and GET /v1/me, ${CONNECTIONS} connections, ${SECONDS} s each, alternating`);
    await me();
    const posts = [await post()];
    const mes = [await me()];
    posts.push(await post());
    const avg = (xs: { rps: number }[]) => xs.reduce((n, x) => n + x.rps, 0) / xs.length;
    const refused = posts.reduce((n, m) => n + m.non2xx, 0);
    if (refused) ctx.note(`warning: ${refused} POST answers were not 2xx`);
    ctx.table('POST /v1/events (queue a conversion for one dataset) vs GET /v1/me (same run)', [
      { name: 'POST /events throughput', value: avg(posts), unit: 'req/s', baseline: { name: 'GET /me', value: avg(mes) }, target: '>= 40% of GET /me' },
      { name: 'POST /events p50 latency', value: posts[1].p50, unit: 'ms', target: `GET /me: ${mes[0].p50} ms` },
      { name: 'POST /events p99 latency', value: posts[1].p99, unit: 'ms', target: `GET /me: ${mes[0].p99} ms` },
    ]);
  } finally {
    await server.close();
  }
}

async function startSandboxProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../ops/sandbox/main.ts')], {
    env: { ...process.env, SANDBOX_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const found = /listening on (http:\/\/\S+)/.exec(chunk.toString());
      if (found) resolve(found[1]);
    });
    child.once('exit', () => reject(new Error('the sandbox did not start')));
  });
  // Also when this process dies of an uncaught error (a bench beside it stopping the shared cluster did that).
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  return { url, stop };
}

/** Posts the worker's own kind of batches straight to the sandbox: what the platform side alone allows. */
async function directRate(url: string, version: string, total: number): Promise<number> {
  const events = Array.from({ length: 1000 }, (_, i) => ({
    event_name: 'Lead', event_time: Math.floor(Date.now() / 1000), event_id: `direct-${i}`, action_source: 'system_generated' as const,
    user_data: { em: ['a'.repeat(64)] },
  }));
  const started = performance.now();
  const lanes = Array.from({ length: 2 }, async (_, lane) => {
    for (let sent = lane * 1000; sent < total; sent += 2000) await sendConversionBatch({ apiUrl: url, apiVersion: version }, { datasetId: String(800_000 + lane), accessToken: 'EAAB-bench', events });
  });
  await Promise.all(lanes);
  return total / ((performance.now() - started) / 1000);
}

async function queueConversions(ctx: BenchContext, booted: Booted, s: Setup, conversions: number): Promise<void> {
  ctx.note(`queueing ${conversions * DATASETS} deliveries (${conversions} conversions x ${DATASETS} datasets)`);
  let next = 0;
  let last = null as Awaited<ReturnType<typeof acceptConversion>>['position'] | null;
  const lane = async () => {
    while (next < conversions) {
      const i = next++;
      const accepted = await acceptConversion(booted.services, { organizationId: s.organizationId, sourceId: s.sourceId, trigger: { kind: 'status', status: 'won' }, externalId: `q-${i}`, email: `q${i}@example.com` }, { organizationId: s.organizationId, actor: 'bench' });
      last = accepted.position;
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  const head = await booted.services.store.headPosition();
  // Every projector of conversions has caught up: the drain is measured alone, not beside their catch-up.
  await booted.services.waiter.waitFor(['delivery_queue', 'conversions'], head, 600_000);
  void last;
}

async function deliveryFigures(ctx: BenchContext, booted: Booted, s: Setup, others: Setup): Promise<void> {
  const sandbox = await startSandboxProcess();
  try {
    const total = Math.round(100_000 * ctx.scale);
    await queueConversions(ctx, booted, s, Math.ceil(total / DATASETS));
    // The HTTP part's conversions wait in the queue too: they are drained and counted with the rest.
    const orgs = [s.organizationId, others.organizationId];
    const depth = await queueDepth(booted.services.pool, orgs);
    const options = deliveryWorkerOptions(booted.services, { sending: true, platform: { apiUrl: sandbox.url, apiVersion: booted.services.config.platformApiVersion } });
    ctx.note(`draining ${depth} deliveries to the sandbox (${options.loops} loops, batches of ${options.batchSize})`);
    const started = performance.now();
    const worker = new DeliveryWorker(booted.services, options).start();
    // A light poll (a count of the whole queue every few milliseconds would cost the database a core).
    while (await anyQueued(booted.services.pool, orgs)) await new Promise((r) => setTimeout(r, 100));
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    const direct = await directRate(sandbox.url, booted.services.config.platformApiVersion, depth);
    ctx.table('Deliveries drained to the sandbox platform (its own process)', [
      { name: 'delivery throughput', value: depth / seconds, unit: 'deliveries/s', baseline: { name: 'same batches posted directly', value: direct }, target: '>= 5,000 deliveries/s' },
    ]);
  } finally {
    sandbox.stop();
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const db = await ctx.freshDatabase('conversions');
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  // The server only queues: the delivery worker of the second part is started by hand, once all is queued.
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PLATFORM_SENDING: 'off' }), { log: createLogger('info', {}, sink) });
  try {
    await booted.startWorkers();
    const shop = await setup(booted, 1);
    const part = process.env.CONVERSIONS_PART;
    if (part !== 'drain') await httpFigures(ctx, booted, shop);
    if (part !== 'http') await deliveryFigures(ctx, booted, await setup(booted, DATASETS), shop);
  } finally {
    await booted.shutdown();
  }
}
