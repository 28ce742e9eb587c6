// `npm run bench -- contacts-cpu`: where the CPU of a list request goes, on the contacts bench's data. Each list
// of the contacts bench is loaded beside GET /v1/me (32 connections, autocannon in a worker thread as there,
// CPU_SECONDS phases, CPU_ROUNDS rounds of /me then the list) and the /proc CPU of the phase is divided by its
// requests: the main thread, the process's other threads (the load generator, GC helpers) and the cluster's
// PostgreSQL processes, user and system time apart. A ratio of throughputs swings with the load of a shared
// machine; CPU per request much less.
// Options: CPU_LISTS=contacts,leads... (figure names, exact); PROF=DIR writes a profile of the main thread in each
// list's last phase (DIR/<list>.cpuprofile); PERF=DIR records that phase of this process and the cluster with
// `perf record -g` (DIR/<list>.data; the server's main thread is this process's pid); EXPLAIN=1 prints each list's
// page statement as its generic plan runs it (EXPLAIN ANALYZE, BUFFERS).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import inspector from 'node:inspector/promises';
import autocannon from 'autocannon';
import { serveApi } from './_serve.ts';
import type { Pool } from '../src/db/pool.ts';
import type { BenchContext } from './run.ts';
import { childrenOf, minus, pgTicks, postmasterOf, threadTicks, type Ticks } from './_cpu.ts';
import { setupContactsBench } from './_contacts-setup.ts';

const CONNECTIONS = 32;

export async function run(ctx: BenchContext): Promise<void> {
  const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? path.join(import.meta.dirname, '..', '.bench-data'));
  const postmaster = postmasterOf(dataDir);
  const { booted, key, lists } = await setupContactsBench(ctx, 'contacts_cpu');
  const server = await serveApi(booted.services);
  const base = server.url;
  const headers = { authorization: `Bearer ${key}` };
  const seconds = Number(process.env.CPU_SECONDS ?? 5);
  const rounds = Number(process.env.CPU_ROUNDS ?? 2);
  const wanted = process.env.CPU_LISTS?.split(',') ?? null;
  const profDir = process.env.PROF;
  const perfDir = process.env.PERF;
  if (perfDir) fs.mkdirSync(perfDir, { recursive: true });
  const session = profDir ? new inspector.Session() : null;
  if (session) {
    fs.mkdirSync(profDir!, { recursive: true });
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }

  const ms = (ticks: Ticks, n: number) => `${((ticks.user * 10) / n).toFixed(3)}+${((ticks.sys * 10) / n).toFixed(3)}`;
  /** One load; returns its req/s. */
  const phase = async (name: string, url: string, profile: string | null): Promise<number> => {
    const t0 = threadTicks(), p0 = pgTicks(postmaster), w0 = performance.now();
    if (session && profile) await session.post('Profiler.start');
    const perf = perfDir && profile
      ? spawn('perf', ['record', '-g', '-F', '999', '-p', [process.pid, postmaster, ...childrenOf(postmaster)].join(','), '-o', path.join(perfDir, `${profile}.data`), '--', 'sleep', String(seconds)], { stdio: 'ignore' })
      : null;
    const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, workers: 1 });
    if (session && profile) fs.writeFileSync(path.join(profDir!, `${profile}.cpuprofile`), JSON.stringify((await session.post('Profiler.stop')).profile));
    if (perf) await new Promise((resolve) => perf.once('exit', resolve));
    const t1 = threadTicks(), p1 = pgTicks(postmaster), wall = (performance.now() - w0) / 1000;
    const n = r.requests.total;
    const main = minus(t1.main, t0.main), pg = minus(p1, p0);
    ctx.note(`${name.padEnd(24)} ${(n / wall).toFixed(0).padStart(5)} req/s  p99 ${String(r.latency.p99).padStart(4)} ms  non2xx ${r.non2xx}  ms CPU/req (user+sys): main ${ms(main, n)}  other ${ms(minus(t1.other, t0.other), n)}  pg ${ms(pg, n)}  (main busy ${(((main.user + main.sys)) / wall).toFixed(0)}%)`);
    return n / wall;
  };

  try {
    for (const [, p] of lists) {
      const res = await fetch(`${base}${p}`, { headers });
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    if (process.env.EXPLAIN) await explainPages(ctx, booted.services.pool, base, headers, lists);
    await phase('warm-up /me', `${base}/v1/me`, null);
    for (const [name, p] of lists) {
      if (wanted && !wanted.includes(name)) continue;
      for (let i = 0; i < rounds; i++) {
        const last = i === rounds - 1;
        const me = await phase('/me', `${base}/v1/me`, last ? `me-before-${name.replace(/\W+/g, '-')}` : null);
        const list = await phase(name, `${base}${p}`, last ? name.replace(/\W+/g, '-') : null);
        ctx.note(`  ${name}: ${((list / me) * 100).toFixed(0)}% of /me`);
      }
    }
  } finally {
    await server.close();
    await booted.shutdown();
  }
}

/** Each list's page statement (caught on its way to the pool), run as a generic plan under EXPLAIN ANALYZE. */
async function explainPages(ctx: BenchContext, pool: Pool, base: string, headers: Record<string, string>, lists: [string, string][]): Promise<void> {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  let caught: { text: string; values: unknown[] } | null = null;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { name?: string; text?: string; values?: unknown[] };
    if (config?.name?.startsWith('page_') || config?.text?.includes('string_agg(item')) caught = { text: config.text!, values: config.values ?? [] };
    return query(...args);
  };
  try {
    for (const [name, p] of lists) {
      caught = null;
      await (await fetch(`${base}${p}`, { headers })).text();
      const page = caught as { text: string; values: unknown[] } | null;
      if (!page) continue;
      const client = await pool.connect();
      try {
        await client.query('SET plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE explained AS ${page.text}`);
        const args = page.values.map((v) => `'${String(v).replaceAll("'", "''")}'`).join(', ');
        for (let i = 0; i < 20; i++) await client.query(`EXECUTE explained(${args})`);
        const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE explained(${args})`);
        ctx.note(`${name}:\n      ${rows.map((r) => r['QUERY PLAN']).join('\n      ')}`);
      } finally {
        await client.query('DEALLOCATE ALL; RESET plan_cache_mode').catch(() => {});
        client.release();
      }
    }
  } finally {
    (pool as unknown as { query: unknown }).query = query;
  }
}
