// A process as `WORKERS=off npm start` runs it, on a database URL of the test's choosing (a proxy it can cut or
// freeze), with its log lines kept for the test to read.
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { boot, type Booted } from '../../../src/boot.ts';
import { loadConfig } from '../../../src/config.ts';
import { closeApp, createApp } from '../../../src/http/app.ts';
import { createHttpServer } from '../../../src/http/server.ts';
import { createLogger } from '../../../src/logger.ts';
import type { Services } from '../../../src/services.ts';
import { requester, type Requester } from '../../support/server.ts';

export interface ApiOnly { origin: string; request: Requester; services: Services; stop(): Promise<void> }

export async function startApiOnly(url: string, logged: string[], env: Record<string, string> = {}): Promise<ApiOnly> {
  const config = loadConfig({ DATABASE_URL: url, WORKERS: 'off', LOG_LEVEL: 'error', ...env });
  const lines = new Writable({ write(chunk, _encoding, done) { logged.push(...String(chunk).trim().split('\n')); done(); } });
  const booted: Booted = await boot(config, { log: createLogger(config.logLevel, {}, lines), poolSize: 6 });
  await booted.services.waiter.listen();
  const app = createApp(booted.services, { ready: true });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    services: booted.services,
    request: requester(origin),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
      await booted.shutdown();
    },
  };
}
