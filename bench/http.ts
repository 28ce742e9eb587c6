// `npm run bench -- http`: GET /v1/me through the full middleware stack (request id and log line, bearer
// key, PostgreSQL rate limit, body parser, idempotency check, route) against a bare Express route answering
// the same JSON in the same process, both under 64 connections (autocannon, in a worker thread so that
// the load generator does not share the servers' event loop).
import { Writable } from 'node:stream';
import autocannon from 'autocannon';
import express from 'express';
import { createApiKey } from '../commands/apikey/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { ALL_SCOPES } from '../commands/shared/scopes.ts';
import { boot, type Booted } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { BenchContext } from './run.ts';
import { listen, serveApi, type Served } from './_serve.ts';

const CONNECTIONS = 64;
const ROUND_SECONDS = 4;

interface Measured { rps: number; p50: number; p99: number; non2xx: number }

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

/** Mean throughput over the rounds; the median round's latencies. */
function summary(rounds: Measured[]): Omit<Measured, 'non2xx'> {
  return { rps: rounds.reduce((n, m) => n + m.rps, 0) / rounds.length, p50: median(rounds.map((m) => m.p50)), p99: median(rounds.map((m) => m.p99)) };
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, workers: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/** An organisation and a key, once the access read model shows it (a busy machine may take a while). */
async function benchKey(booted: Booted): Promise<string> {
  const { services } = booted;
  const org = await createOrganization(services.store, { name: 'Bench org' }, new Date());
  const key = await createApiKey(services.store, { organizationId: org.id, name: 'bench', scopes: [...ALL_SCOPES], expiresAt: null }, new Date());
  for (let attempt = 0; attempt < 6; attempt++) {
    if (await services.waiter.waitFor(['access'], key.position, 10_000)) return key.key;
  }
  throw new Error('the access projection did not show the bench key within a minute');
}

/** Rounds that alternate which side goes first, so that a change in the machine's load falls on both. */
async function compare(ctx: BenchContext, full: Served, bare: Served, headers: Record<string, string>): Promise<void> {
  const rounds = Math.max(2, Math.round(4 * ctx.scale));
  ctx.note(`warming up, then ${rounds} rounds of ${ROUND_SECONDS} s per side with ${CONNECTIONS} connections`);
  await load(`${bare.url}/v1/me`, headers, 2);
  await load(`${full.url}/v1/me`, headers, 2);
  const plain: Measured[] = [];
  const stack: Measured[] = [];
  for (let round = 0; round < rounds; round++) {
    const sides = [
      () => load(`${bare.url}/v1/me`, headers, ROUND_SECONDS).then((m) => plain.push(m)),
      () => load(`${full.url}/v1/me`, headers, ROUND_SECONDS).then((m) => stack.push(m)),
    ];
    for (const side of round % 2 ? sides.reverse() : sides) await side();
  }
  const refused = stack.reduce((n, m) => n + m.non2xx, 0);
  if (refused) ctx.note(`warning: ${refused} answers of the full stack were not 2xx`);
  const [b, f] = [summary(plain), summary(stack)];
  ctx.table('GET /v1/me: full middleware stack vs a bare Express route (same process, same run)', [
    { name: 'full stack throughput', value: f.rps, unit: 'req/s', baseline: { name: 'bare route', value: b.rps }, target: '>= 50% of bare' },
    { name: 'full stack p50 latency', value: f.p50, unit: 'ms', target: `bare: ${b.p50} ms` },
    { name: 'full stack p99 latency', value: f.p99, unit: 'ms', target: `< 25 ms (bare: ${b.p99} ms)` },
  ]);
}

export async function run(ctx: BenchContext): Promise<void> {
  const db = await ctx.freshDatabase('http');
  // The request log is written as in production (JSON lines), to a sink instead of the terminal.
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }), { log: createLogger('info', {}, sink) });
  const closing: (() => Promise<void>)[] = [() => booted.shutdown()];
  try {
    await booted.startWorkers();
    const headers = { authorization: `Bearer ${await benchKey(booted)}` };
    // The rate limit still counts every request in PostgreSQL; raised so that no request is turned away.
    const full = await serveApi(booted.services);
    closing.unshift(() => full.close());
    const sample = await fetch(`${full.url}/v1/me`, { headers });
    if (sample.status !== 200) throw new Error(`GET /v1/me answered ${sample.status}`);
    const body = await sample.json();
    const bareApp = express();
    bareApp.get('/v1/me', (_req, res) => { res.json(body); });
    const bare = await listen(bareApp);
    closing.unshift(() => bare.close());
    await compare(ctx, full, bare, headers);
  } finally {
    for (const close of closing) await close();
  }
}
