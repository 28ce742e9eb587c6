// The sandbox ad platform: a node:http server answering like the Graph API, driven in-process or over /__sandbox.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl } from './control-routes.ts';
import { handleEvents } from './events-route.ts';
import { graphError, unknownPath } from './graph-errors.ts';
import { handleGraphGet } from './graph-routes.ts';
import { parseParams, readBody, sendError, sendJson, sendText } from './http-util.ts';
import { SandboxStore, type SandboxOptions } from './store.ts';

const VERSION = /^v\d+\.\d+$/;

export interface SandboxStartOptions extends SandboxOptions {
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
}

/** A running sandbox: its base URL (the service appends /{version}/...), stop(), and the store's control methods. */
export class Sandbox extends SandboxStore {
  url = '';
  private server: Server | null = null;

  attach(server: Server, url: string): void {
    this.server = server;
    this.url = url;
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
  }
}

function bearer(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7) : null;
}

async function platform(store: SandboxStore, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const [version, ...segments] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (version === undefined || !VERSION.test(version)) return sendError(res, unknownPath());
  store.countRequest(url.pathname);
  const failure = store.takeFailure(url.pathname);
  if (failure) {
    const transient = failure.transient ?? true;
    const code = failure.code ?? (transient ? 2 : 100);
    const message = failure.message ?? (transient ? 'An unexpected error has occurred. Please retry your request later.' : 'Invalid parameter');
    return sendError(res, graphError(failure.status ?? (transient ? 500 : 400), code, message, {
      transient,
      ...(failure.subcode !== undefined ? { subcode: failure.subcode } : {}),
      ...(failure.userMessage !== undefined ? { userMsg: failure.userMessage } : {}),
    }));
  }
  if (req.method === 'POST' && segments.length === 2 && segments[1] === 'events') {
    const params = parseParams(await readBody(req), req.headers['content-type']);
    if (params === null) return sendError(res, graphError(400, 100, '(#100) The request body could not be parsed'));
    const answer = handleEvents(store, segments[0], params, url.searchParams);
    return sendJson(res, answer.status, answer.body);
  }
  if (req.method === 'GET') {
    const token = url.searchParams.get('access_token') ?? bearer(req) ?? '';
    const answer = handleGraphGet(store, { segments, url, base: `http://${req.headers.host ?? 'localhost'}`, token });
    return sendJson(res, answer.status, answer.body);
  }
  return sendError(res, unknownPath());
}

async function route(store: SandboxStore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  if (url.pathname.startsWith('/__sandbox/')) {
    const body = await readBody(req);
    const path = url.pathname.slice('/__sandbox'.length);
    const answer = await handleControl(store, { method: req.method ?? 'GET', path, query: url.searchParams, body, contentType: req.headers['content-type'] ?? '' });
    return sendJson(res, answer.status, answer.body);
  }
  const sheet = /^\/sheets\/([^/]+)\.csv$/.exec(url.pathname);
  if (sheet && req.method === 'GET') {
    const csv = store.catalog.sheets.get(decodeURIComponent(sheet[1]));
    store.countRequest(url.pathname);
    // A spreadsheet host fails with a plain error page, not a Graph error.
    const failure = store.takeFailure(url.pathname);
    if (failure) return sendText(res, failure.status ?? 500, failure.message ?? 'Internal Server Error', 'text/html');
    return csv === undefined ? sendText(res, 404, 'Not Found', 'text/plain') : sendText(res, 200, csv, 'text/csv; charset=utf-8');
  }
  return platform(store, req, res, url);
}

export async function startSandbox(opts: SandboxStartOptions = {}): Promise<Sandbox> {
  const sandbox = new Sandbox(opts);
  const server = createServer((req, res) => {
    route(sandbox, req, res).catch((err: unknown) => {
      // A sandbox bug must show, not hang the client: answer the platform's generic error and say why on stderr.
      process.stderr.write(`sandbox: ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      if (!res.headersSent) sendError(res, graphError(500, 1, 'An unknown error occurred', { transient: true }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  sandbox.attach(server, `http://${host}:${port}`);
  return sandbox;
}
