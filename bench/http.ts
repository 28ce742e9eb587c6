// `npm run bench -- http`: GET /v1/me through the full middleware stack (request id and log line, bearer
// key, PostgreSQL rate limit, body parser, idempotency check, route, two read-model queries) against a bare
// Express route answering the same JSON in the same process, both under 64 connections (autocannon,
// in a worker thread so that the load generator does not share the servers' event loop).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import autocannon from 'autocannon';
import express from 'express';
import { createApiKey } from '../commands/apikey/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { ALL_SCOPES } from '../commands/shared/scopes.ts';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { closeApp, createApp } from '../src/http/app.ts';
import { createLogger } from '../src/logger.ts';
import type { BenchContext } from './run.ts';

const CONNECTIONS = 64;

interface Measured { rps: number; p50: number; p99: number; non2xx: number }

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, workers: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

export async function run(ctx: BenchContext): Promise<void> {
  const db = await ctx.freshDatabase('http');
  // The request log is written as in production (JSON lines), to a sink instead of the terminal.
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }), { log: createLogger('info', {}, sink), poolSize: 20 });
  await booted.startWorkers();
  const { services } = booted;
  const org = await createOrganization(services.store, { name: 'Bench org' }, new Date());
  const key = await createApiKey(services.store, { organizationId: org.id, name: 'bench', scopes: [...ALL_SCOPES], expiresAt: null }, new Date());
  await services.waiter.waitFor(['access'], key.position, 10_000);

  // The rate limit still counts every request in PostgreSQL; raised so that no request is turned away.
  const app = createApp(services, { ready: true }, { rateLimitPerMinute: 1_000_000_000 });
  const full = await listen(app);
  const headers = { authorization: `Bearer ${key.key}` };
  const sample = await fetch(`${full.url}/v1/me`, { headers });
  if (sample.status !== 200) throw new Error(`GET /v1/me answered ${sample.status}`);
  const body = await sample.json();
  const bareApp = express();
  bareApp.get('/v1/me', (_req, res) => { res.json(body); });
  const bare = await listen(bareApp);

  const seconds = Math.max(3, Math.round(10 * ctx.scale));
  try {
    ctx.note(`warming up, then ${seconds} s each with ${CONNECTIONS} connections`);
    await load(`${bare.url}/v1/me`, headers, 2);
    await load(`${full.url}/v1/me`, headers, 2);
    const plain = await load(`${bare.url}/v1/me`, headers, seconds);
    const stack = await load(`${full.url}/v1/me`, headers, seconds);
    if (stack.non2xx) ctx.note(`warning: ${stack.non2xx} answers of the full stack were not 2xx`);
    ctx.table('GET /v1/me: full middleware stack vs a bare Express route (same process, same run)', [
      { name: 'full stack throughput', value: stack.rps, unit: 'req/s', baseline: { name: 'bare route', value: plain.rps }, target: '>= 50% of bare' },
      { name: 'full stack p50 latency', value: stack.p50, unit: 'ms', target: `bare: ${plain.p50} ms` },
      { name: 'full stack p99 latency', value: stack.p99, unit: 'ms', target: `< 25 ms (bare: ${plain.p99} ms)` },
    ]);
  } finally {
    await full.close();
    await bare.close();
    await closeApp(app);
    await booted.shutdown();
  }
}
