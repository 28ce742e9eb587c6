// `npm run bench -- conversions-cpu`: where the CPU of a request goes, GET /v1/me beside POST /v1/events
// (64 connections, 5 s phases, alternating): milliseconds of CPU per request on the main thread, the other
// threads of this process (the load generator, GC helpers) and the cluster's PostgreSQL processes, from
// /proc. A throughput ratio swings with the load of a shared machine; CPU per request much less.
// Options: CPU_SECONDS, CPU_ROUNDS; PGSS=1 prints pg_stat_statements of the last POST phase (the cluster must
// preload the extension); PROF=file.cpuprofile writes a profile of the main thread in the last POST phase.
import fs from 'node:fs';
import path from 'node:path';
import inspector from 'node:inspector/promises';
import { Writable } from 'node:stream';
import autocannon from 'autocannon';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { serveApi } from './_serve.ts';
import { createLogger } from '../src/logger.ts';
import type { BenchContext } from './run.ts';
import { postEventBody, setup } from './_conversions-setup.ts';
import { minus, pgTicks, postmasterOf, threadTicks, type Ticks } from './_cpu.ts';

const total = (t: Ticks) => t.user + t.sys;

export async function run(ctx: BenchContext): Promise<void> {
  const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? path.join(import.meta.dirname, '..', '.bench-data'));
  const postmaster = postmasterOf(dataDir);
  const db = await ctx.freshDatabase('conversions_cpu');
  const sink = new Writable({ write(_c, _e, done) { done(); } });
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PLATFORM_SENDING: 'off' }), { log: createLogger('info', {}, sink) });
  await booted.startWorkers();
  const s = await setup(booted, 1);
  const server = await serveApi(booted.services);
  const base = `${server.url}/v1`;
  const authorization = `Bearer ${s.key}`;
  const body = postEventBody(s.sourceId);
  const seconds = Number(process.env.CPU_SECONDS ?? 5);
  const prof = process.env.PROF;
  const session = prof ? new inspector.Session() : null;
  if (session) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 200 }); }
  const phase = async (kind: 'me' | 'post') => {
    const t0 = threadTicks(), p0 = pgTicks(postmaster), w0 = performance.now();
    if (session && kind === 'post') await session.post('Profiler.start');
    const r = await autocannon({
      url: kind === 'me' ? `${base}/me` : `${base}/events`, connections: 64, duration: seconds, workers: 1,
      ...(kind === 'post' ? { method: 'POST' as const, headers: { authorization, 'content-type': 'application/json' }, body, idReplacement: true } : { headers: { authorization } }),
    });
    let profile: unknown = null;
    if (session && kind === 'post') profile = (await session.post('Profiler.stop')).profile;
    const t1 = threadTicks(), p1 = pgTicks(postmaster), wall = (performance.now() - w0) / 1000;
    const n = r.requests.total;
    const per = (ticks: number) => ((ticks * 10) / n).toFixed(3);
    ctx.note(`${kind.padEnd(4)} ${(n / wall).toFixed(0).padStart(5)} req/s  non2xx ${r.non2xx}  ms CPU/req: main ${per(total(minus(t1.main, t0.main)))} other ${per(total(minus(t1.other, t0.other)))} pg ${per(total(minus(p1, p0)))}  (main busy ${(total(minus(t1.main, t0.main)) / wall).toFixed(0)}%, pg ${(total(minus(p1, p0)) / wall).toFixed(0)}%)`);
    return profile;
  };
  const rounds = Number(process.env.CPU_ROUNDS ?? 2);
  const pgss = process.env.PGSS ? db.pool : null;
  if (pgss) await pgss.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await phase('me');
  const profiles: unknown[] = [];
  for (let i = 0; i < rounds; i++) {
    if (pgss && i === rounds - 1) await pgss.query('SELECT pg_stat_statements_reset()');
    profiles.push(await phase('post'));
    if (pgss && i === rounds - 1) {
      const { rows } = await pgss.query(`SELECT calls, rows, round(total_exec_time::numeric, 0) AS exec, round(total_plan_time::numeric, 0) AS plan, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
        FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 30`);
      for (const r of rows) console.log(`    ${String(r.calls).padStart(7)} ${String(r.rows).padStart(8)} ${String(r.exec).padStart(6)} ${String(r.plan).padStart(5)}  ${r.q}`);
    }
    await phase('me');
  }
  if (prof && profiles[profiles.length - 1]) fs.writeFileSync(prof, JSON.stringify(profiles[profiles.length - 1]));
  await server.close();
  await booted.shutdown();
}
