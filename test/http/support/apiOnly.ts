// A process as `WORKERS=off npm start` runs it, on a database URL of the test's choosing (a proxy it can cut or
// freeze), with its log lines kept for the test to read.
import { Writable } from 'node:stream';
import { boot, type Booted } from '../../../src/boot.ts';
import { loadConfig } from '../../../src/config.ts';
import { createApp } from '../../../src/http/app.ts';
import { createLogger } from '../../../src/logger.ts';
import type { Services } from '../../../src/services.ts';
import { failOnResponseMismatch } from '../../support/responseCheck.ts';
import { requester, serveOnFreePort, type Requester } from '../../support/server.ts';

export interface ApiOnly { origin: string; request: Requester; services: Services; stop(): Promise<void> }

export async function startApiOnly(url: string, logged: string[], env: Record<string, string> = {}): Promise<ApiOnly> {
  const config = loadConfig({ DATABASE_URL: url, WORKERS: 'off', LOG_LEVEL: 'error', ...env });
  const lines = new Writable({ write(chunk, _encoding, done) { logged.push(...String(chunk).trim().split('\n')); done(); } });
  const booted: Booted = await boot(config, { log: createLogger(config.logLevel, {}, lines), poolSize: 6 });
  await booted.services.waiter.listen();
  const { origin, close } = await serveOnFreePort(createApp(booted.services, { ready: true }, { onResponseMismatch: failOnResponseMismatch }), booted);
  return { origin, services: booted.services, request: requester(origin), stop: close };
}
