// A second app instance on a test server's database, with options of its own (extra routes, a frozen
// clock, a capturing logger): what several API processes sharing one PostgreSQL look like.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeApp, createApp, type AppExtras } from '../../../src/http/app.ts';
import { routes } from '../../../src/http/routes.ts';
import type { RouteDef } from '../../../src/http/route.ts';
import type { Services } from '../../../src/services.ts';
import { failOnResponseMismatch } from '../../support/responseCheck.ts';
import { requester, type Requester } from '../../support/server.ts';

export interface ExtraApp {
  origin: string;
  request: Requester;
  stop(): Promise<void>;
}

export async function startApp(services: Services, extras: AppExtras & { extraRoutes?: RouteDef[] } = {}): Promise<ExtraApp> {
  const { extraRoutes = [], ...options } = extras;
  const app = createApp(services, { ready: true }, { routes: [...routes, ...extraRoutes], onResponseMismatch: failOnResponseMismatch, ...options });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    request: requester(origin),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
    },
  };
}

/** A clock the test moves by hand. */
export function frozenClock(start = new Date()): { now: () => Date; advance(ms: number): void } {
  let current = start.getTime();
  return { now: () => new Date(current), advance: (ms) => { current += ms; } };
}
