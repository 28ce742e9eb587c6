// `npm run bench -- webhooks`: 10,000 ContactCreated events appended while the whole service runs, fanned
// out to 3 subscriptions whose receivers are local HTTP servers that verify every signature. Figures:
// signed pushes/s from the first append to the last arrival, and p99 from a push's domain event append to
// its arrival. Baseline (same run): the same number of signed POSTs sent straight to the same receivers
// through the same keep-alive pool, with no store, queue or retry bookkeeping. Each run also counts the CPU
// seconds it took (this process, receivers included, and the database's backends): on a machine shared with
// other work, pushes per CPU second move far less than pushes per second.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { boot } from '../src/boot.ts';
import { createLogger } from '../src/logger.ts';
import { closeSenderAgents, createSenderAgents } from '../src/webhooks/agents.ts';
import { sendPush } from '../src/webhooks/sender.ts';
import { verifyPush } from '../src/webhooks/signature.ts';
import { createWebhook } from '../commands/webhook/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { contactStream } from '../commands/contact/contact.ts';
import type { EventStore } from '../src/eventstore/port.ts';
import type { BenchContext } from './run.ts';
import type { Services } from '../src/services.ts';
import type { Queryable } from '../src/db/pool.ts';
import { ProjectionEngine } from '../src/projections/engine.ts';
import { webhookOutboxProjector } from '../projections/webhook_outbox/projector.ts';
import { webhooksProjector } from '../projections/webhooks/projector.ts';
import { WebhookSender, webhookSenderOptions } from '../src/processes/webhooks/worker.ts';

const RECEIVERS = 3;
const APPENDERS = 4;
const PER_APPEND = 50;

interface Receivers {
  urls: string[];
  /** ms from created_at to arrival, one per push. */
  latencies: number[];
  bad: number;
  arrived: number;
  secrets: string[];
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceivers(): Promise<Receivers> {
  const servers: http.Server[] = [];
  const state: Receivers = { urls: [], latencies: [], bad: 0, arrived: 0, secrets: [], waitFor: async () => {}, close: async () => {} };
  let waiting: { count: number; resolve: () => void } | null = null;
  for (let i = 0; i < RECEIVERS; i++) {
    const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (!verifyPush(state.secrets[i] ?? '', req.headers, raw, Math.floor(Date.now() / 1000))) state.bad++;
        const createdAt = Date.parse((JSON.parse(raw.toString()) as { created_at: string }).created_at);
        state.latencies.push(Date.now() - createdAt);
        state.arrived++;
        res.writeHead(204).end();
        if (waiting && state.arrived >= waiting.count) waiting.resolve();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    state.urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  state.waitFor = (count) => (state.arrived >= count ? Promise.resolve() : new Promise((resolve) => { waiting = { count, resolve }; }));
  state.close = async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  };
  return state;
}

function reset(r: Receivers): void {
  r.latencies = [];
  r.arrived = 0;
  r.bad = 0;
}

interface CpuUse {
  node: number;
  postgres: number;
}

/** CPU seconds of a process from /proc (Linux; 0 elsewhere or when it is gone), at 100 ticks a second. */
function processCpu(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Starts counting; the returned function gives the CPU seconds since (a backend that exits meanwhile is missed). */
async function cpuMeter(db: Queryable): Promise<() => Promise<CpuUse>> {
  const backends = async () => (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  const startNode = process.cpuUsage();
  const startPg = new Map((await backends()).map((pid) => [pid, processCpu(pid)]));
  return async () => {
    const node = process.cpuUsage(startNode);
    const postgres = (await backends()).reduce((sum, pid) => sum + processCpu(pid) - (startPg.get(pid) ?? 0), 0);
    return { node: (node.user + node.system) / 1e6, postgres };
  };
}

const cpuNote = (label: string, cpu: CpuUse, pushes: number) =>
  `${label}: CPU node ${cpu.node.toFixed(1)} s + PostgreSQL ${cpu.postgres.toFixed(1)} s = ${(((cpu.node + cpu.postgres) * 1000) / pushes).toFixed(2)} ms a push`;

const perCpuSecond = (pushes: number, cpu: CpuUse) => pushes / Math.max(0.001, cpu.node + cpu.postgres);

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] ?? 0;

/** Contacts as an import makes them: many new contact streams per atomic append. */
async function appendContacts(store: EventStore, organizationId: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: APPENDERS }, async () => {
    for (let first = (next += PER_APPEND) - PER_APPEND; first < count; first = (next += PER_APPEND) - PER_APPEND) {
      const requests = Array.from({ length: Math.min(PER_APPEND, count - first) }, (_, k) => {
        const contactId = randomUUID();
        const i = first + k;
        return { stream: contactStream(contactId), expectedRevision: 'no_stream' as const, events: [{ type: 'ContactCreated', data: {
          contactId, organizationId, name: `Bench ${i}`, phone: '', email: `b${i}@example.com`, phoneHash: null, emailHash: null, tags: [],
          stage: 'new', cycle: 1, firstSource: 'api', firstAd: null, ownerId: null, smsOptout: false, createdAt: new Date().toISOString(),
        } }] };
      });
      await store.appendMany(requests, { organizationId, actor: 'bench' });
    }
  }));
}

/** The plainest way: signed POSTs straight to the receivers, as many in flight as the sender's pool allows. */
async function baseline(receivers: Receivers, total: number): Promise<{ rate: number; cpu: CpuUse }> {
  reset(receivers);
  const agents = createSenderAgents();
  let next = 0;
  const startNode = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: 48 }, async () => {
    for (let i = next++; i < total; i = next++) {
      const r = i % RECEIVERS;
      await sendPush({ url: receivers.urls[r], secret: receivers.secrets[r], timeoutMs: 10_000, allowPrivate: true, nowSeconds: Math.floor(Date.now() / 1000), agents,
        delivery: { id: randomUUID(), type: 'contact.created', createdAt: new Date().toISOString(), data: { contact_id: randomUUID(), stage: 'new', first_source: 'api' } } });
    }
  }));
  const rate = total / ((performance.now() - started) / 1000);
  const node = process.cpuUsage(startNode);
  closeSenderAgents(agents);
  return { rate, cpu: { node: (node.user + node.system) / 1e6, postgres: 0 } };
}

interface Service {
  services: Services;
  stop(): Promise<void>;
}

/** The service on a fresh database: every worker (end to end), or only the fan-out with no sender yet. */
async function startService(ctx: BenchContext, label: string, whole: boolean): Promise<Service> {
  const db = await ctx.freshDatabase(label);
  const config = loadConfig({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: '1', LOG_LEVEL: 'silent' });
  const log = createLogger('silent');
  const booted = await boot(config, { log, poolSize: 40 });
  if (whole) {
    await booted.startWorkers();
    return { services: booted.services, stop: () => booted.shutdown() };
  }
  await booted.services.waiter.listen();
  const engine = new ProjectionEngine(booted.services.pool, booted.services.store, [webhookOutboxProjector, webhooksProjector], log, booted.services.waiter);
  engine.start();
  return { services: booted.services, stop: async () => { await engine.stop(); await booted.shutdown(); } };
}

async function subscribeAll(services: Services, receivers: Receivers): Promise<string> {
  const org = await createOrganization(services.store, { name: 'Bench' }, new Date());
  receivers.secrets.length = 0;
  for (const url of receivers.urls) {
    const created = await createWebhook(services, { organizationId: org.id, url, events: ['contact.created'] }, { organizationId: org.id, actor: 'bench' });
    receivers.secrets.push(created.secret);
    await services.waiter.waitFor(['webhook_outbox'], created.position, 10_000);
  }
  return org.id;
}

/** End to end: appends while every worker runs; pushes/s from the first append to the last arrival, and p99. */
async function endToEnd(ctx: BenchContext, receivers: Receivers, events: number): Promise<{ rate: number; p99: number; cpu: CpuUse }> {
  const service = await startService(ctx, 'webhooks_e2e', true);
  try {
    const organizationId = await subscribeAll(service.services, receivers);
    reset(receivers);
    const cpuSince = await cpuMeter(service.services.pool);
    const started = performance.now();
    await appendContacts(service.services.store, organizationId, events);
    const appended = performance.now() - started;
    await receivers.waitFor(events * RECEIVERS);
    const seconds = (performance.now() - started) / 1000;
    const cpu = await cpuSince();
    ctx.note(`end to end: appends ${(appended / 1000).toFixed(1)} s, last arrival ${seconds.toFixed(1)} s, bad signatures ${receivers.bad}`);
    ctx.note(cpuNote('end to end', cpu, events * RECEIVERS));
    return { rate: (events * RECEIVERS) / seconds, p99: p99(receivers.latencies), cpu };
  } finally {
    await service.stop();
  }
}

/** The sender alone: everything queued first, then one sender drains the queue. */
async function senderAlone(ctx: BenchContext, receivers: Receivers, events: number): Promise<{ rate: number; cpu: CpuUse }> {
  const service = await startService(ctx, 'webhooks_drain', false);
  try {
    const { services } = service;
    const organizationId = await subscribeAll(services, receivers);
    await appendContacts(services.store, organizationId, events);
    await services.waiter.waitFor(['webhook_outbox'], await services.store.headPosition(), 600_000);
    reset(receivers);
    const cpuSince = await cpuMeter(services.pool);
    const started = performance.now();
    const sender = new WebhookSender(services, webhookSenderOptions(services)).start();
    await receivers.waitFor(events * RECEIVERS);
    const rate = (events * RECEIVERS) / ((performance.now() - started) / 1000);
    const cpu = await cpuSince();
    await sender.stop();
    ctx.note(`sender alone: bad signatures ${receivers.bad}`);
    ctx.note(cpuNote('sender alone', cpu, events * RECEIVERS));
    return { rate, cpu };
  } finally {
    await service.stop();
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  const events = Math.max(100, Math.round(10_000 * ctx.scale));
  const receivers = await startReceivers();
  try {
    ctx.note(`${events} events x ${RECEIVERS} subscriptions = ${events * RECEIVERS} pushes`);
    const e2e = await endToEnd(ctx, receivers, events);
    const drain = await senderAlone(ctx, receivers, events);
    const plain = await baseline(receivers, events * RECEIVERS);
    const pushes = events * RECEIVERS;
    ctx.note(cpuNote('direct signed POSTs', plain.cpu, pushes));
    const direct = { name: 'direct signed POSTs', value: plain.rate };
    const directPerCpu = { name: 'direct signed POSTs', value: perCpuSecond(pushes, plain.cpu) };
    ctx.table('Webhooks: fan-out and signed pushes', [
      { name: 'end to end (append -> arrival, every worker)', value: e2e.rate, unit: 'pushes/s', baseline: direct, target: '>= 2,000 pushes/s' },
      { name: 'sender draining a full queue', value: drain.rate, unit: 'pushes/s', baseline: direct, target: '>= 2,000 pushes/s' },
      { name: 'p99 append -> arrival, as a rate', value: 1000 / Math.max(1, e2e.p99), unit: '1/s', target: `p99 = ${e2e.p99} ms` },
      { name: 'end to end, per CPU second (node + PostgreSQL)', value: perCpuSecond(pushes, e2e.cpu), unit: 'pushes/CPU s', baseline: directPerCpu },
      { name: 'sender alone, per CPU second', value: perCpuSecond(pushes, drain.cpu), unit: 'pushes/CPU s', baseline: directPerCpu },
    ]);
  } finally {
    await receivers.close();
  }
}
