// The benches' servers: a handler on a free loopback port, and the service's API as the benches load it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeApp, createApp } from '../src/http/app.ts';
import type { Services } from '../src/services.ts';

export interface Served {
  /** http://127.0.0.1:PORT, without a trailing slash. */
  url: string;
  /** Drops open connections (the load generator's keep-alives) and waits for the server to close. */
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

/** The API as `npm start` serves it, but with a rate limit no bench reaches (it still counts every request). */
export async function serveApi(services: Services): Promise<Served> {
  const app = createApp(services, { ready: true }, { rateLimitPerMinute: 1_000_000_000 });
  const served = await listen(app);
  return { url: served.url, close: async () => { await served.close(); await closeApp(app); } };
}
