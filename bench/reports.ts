// `npm run bench -- reports`: 2,000 ads spending every day for two years and 1,000,000 leads (x BENCH_SCALE)
// in the store; the reporting projections rebuilt from it (against a plain read of the same store), then
// both reports at each level over 30, 90 and 366 days through the full HTTP stack, beside GET /v1/me in
// the same run. Requests are sequential on one keep-alive connection, so latency is the report's own.
import http from 'node:http';
import { createApiKey } from '../commands/apikey/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import type { Services } from '../src/services.ts';
import { createLogger } from '../src/logger.ts';
import { START } from '../src/eventstore/port.ts';
import type { EventStore } from '../src/eventstore/port.ts';
import { drainProjections } from '../src/projections/drain.ts';
import { rebuildProjector } from '../src/projections/rebuild.ts';
import { projectors } from '../src/projections/all.ts';
import { addDays, localDays } from '../projections/reporting_shared/days.ts';
import { REPORTING_PROJECTORS } from '../ops/reports-asof.ts';
import { ADS, DAYS, generate } from './_reports-data.ts';
import { serveApi } from './_serve.ts';
import type { BenchContext, Figure } from './run.ts';

const TIMEZONE = 'Europe/Warsaw';

/** The plainest replay: read every event of the store in the rebuild's batch size, apply nothing. */
async function readAllRate(store: EventStore): Promise<number> {
  const started = performance.now();
  let after = START;
  let n = 0;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: 5000 });
    if (!batch.length) break;
    n += batch.length;
    after = batch[batch.length - 1].position;
  }
  return n / ((performance.now() - started) / 1000);
}

async function latencies(url: string, key: string, path: string, requests: number): Promise<{ p50: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () => new Promise<number>((resolve, reject) => {
    const started = performance.now();
    http.get(`${url}/v1${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { if (res.statusCode !== 200) body += c.toString(); });
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${path}: ${res.statusCode} ${body}`))));
    }).on('error', reject);
  });
  for (let i = 0; i < 3; i++) await get(); // warm-up: plans cached, pool connected
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await get());
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}

export async function run(ctx: BenchContext): Promise<void> {
  const db = await ctx.freshDatabase('reports');
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', JOB_CONCURRENCY: '0' }), { log: createLogger('error', {}, process.stderr), poolSize: 20 });
  const { services } = booted;
  try {
    const org = await createOrganization(services.store, { name: 'Bench reports', timezone: TIMEZONE, currency: 'PLN' }, new Date());
    const key = await createApiKey(services.store, { organizationId: org.id, name: 'bench', scopes: ['campaigns:read', 'creatives:read'], expiresAt: null }, new Date());
    const today = localDays(TIMEZONE)(new Date().toISOString());
    const leads = Math.round(1_000_000 * ctx.scale);
    ctx.note(`appending 2 years of spend for 2,000 ads and ${leads.toLocaleString('en-US')} leads...`);
    const t0 = performance.now();
    const events = await generate(services.store, org.id, leads, addDays(today, -1), (text) => ctx.note(text));
    ctx.note(`${events.toLocaleString('en-US')} events appended in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    await drainProjections(services.pool, services.store, projectors.filter((p) => p.name === 'access'), services.waiter, key.position);

    const { rows } = await services.pool.query<{ n: string }>('SELECT count(*) AS n FROM es_events');
    const total = Number(rows[0].n);
    const plainRate = await readAllRate(services.store);
    const rebuild: Figure[] = [];
    let seconds = 0;
    for (const projector of REPORTING_PROJECTORS) {
      const started = performance.now();
      await rebuildProjector(services.pool, services.store, projector);
      const s = (performance.now() - started) / 1000;
      seconds += s;
      const applied = await services.pool.query<{ n: string }>('SELECT events_applied AS n FROM projection_checkpoints WHERE name = $1', [projector.name]);
      const handled = `${Number(applied.rows[0]?.n ?? 0).toLocaleString('en-US')} events applied`;
      const spendRows = projector.name === 'reporting_ads' ? `, ${(ADS * DAYS).toLocaleString('en-US')} spend rows` : '';
      rebuild.push({ name: `rebuild ${projector.name} (${s.toFixed(1)} s, ${handled}${spendRows})`, value: total / s, unit: 'events/s', baseline: { name: 'plain read of the store', value: plainRate }, target: '>= 30,000 events/s' });
    }
    rebuild.push({ name: `both reporting projections (${seconds.toFixed(1)} s)`, value: total / seconds, unit: 'events/s', baseline: { name: 'plain read of the store', value: plainRate }, target: '>= 30,000 events/s' });
    ctx.table(`Reporting projections rebuilt from a store of ${total.toLocaleString('en-US')} events`, rebuild);

    await measureReports(ctx, services, key.key, today);
  } finally {
    await booted.shutdown();
  }
}

async function measureReports(ctx: BenchContext, services: Services, key: string, today: string): Promise<void> {
  const server = await serveApi(services);
  const url = server.url;
  const requests = Math.max(30, Math.round(100 * ctx.scale));
  try {
    const me = await latencies(url, key, '/me', requests);
    const figures: Figure[] = [];
    const row = (name: string, m: { p50: number; p99: number }) => {
      figures.push({ name: `${name} p50`, value: m.p50, unit: 'ms', target: `GET /v1/me p50 ${me.p50.toFixed(1)} ms` });
      figures.push({ name: `${name} p99`, value: m.p99, unit: 'ms', target: `<= 150 ms (GET /v1/me p99 ${me.p99.toFixed(1)} ms)` });
    };
    for (const days of [30, 90, 366]) {
      const from = addDays(today, -(days - 1));
      for (const level of ['campaign', 'adset', 'ad']) {
        row(`campaigns ${level} ${days} d`, await latencies(url, key, `/campaigns/report?from=${from}&to=${today}&level=${level}`, requests));
      }
      row(`creatives ${days} d (4 weeks)`, await latencies(url, key, `/creatives/report?from=${from}&to=${today}`, requests));
    }
    ctx.table(`Report latency, ${requests} sequential requests each (GET /v1/me in the same run: p50 ${me.p50.toFixed(1)} ms, p99 ${me.p99.toFixed(1)} ms)`, figures);
  } finally {
    await server.close();
  }
}
