// The real service on an ephemeral port against a fresh database, with helpers to make organisations,
// keys and requests. Workers (projectors, process managers) run in the same process, as in `npm start`.
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/config.ts';
import { boot, type Booted } from '../../src/boot.ts';
import { closeApp, createApp, type AppState } from '../../src/http/app.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/logger.ts';
import type { Express } from 'express';
import type { Services } from '../../src/services.ts';
import { createOrganization } from '../../commands/organization/handlers.ts';
import { createApiKey } from '../../commands/apikey/handlers.ts';
import { ALL_SCOPES } from '../../commands/shared/scopes.ts';
import { freshDatabase, type TestDatabase } from './db.ts';
import { committedHeadOn } from '../../src/eventstore/postgres-sql.ts';
import { failOnResponseMismatch } from './responseCheck.ts';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Requester = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<Reply<T>>;

/** Requests to ORIGIN/v1{path}: body objects are sent as JSON, strings as they are. */
export function requester(origin: string): Requester {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${origin}/v1${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON: keep the text */ }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
}

export interface TestOrg {
  organizationId: string;
  key: string;
  keyId: string;
}

export interface TestServer {
  /** http://127.0.0.1:PORT (no /v1) */
  origin: string;
  services: Services;
  db: TestDatabase;
  booted: Booted;
  newOrganization(options?: { scopes?: string[]; name?: string; timezone?: string; currency?: string; expiresAt?: string | null }): Promise<TestOrg>;
  newKey(organizationId: string, scopes: string[], expiresAt?: string | null): Promise<{ key: string; keyId: string }>;
  /** A request to /v1{path}; body objects are sent as JSON, strings as they are. */
  request: Requester;
  /** Wait until every projector has passed the store's head. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** The app on a free local port; `close` ends its connections, then the app and the service it was booted with. */
export async function serveOnFreePort(app: Express, booted: Booted): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
      await booted.shutdown();
    },
  };
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const db = await freshDatabase('http');
  const config: Config = loadConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DELIVERY_RETRY_SCHEDULE: '200ms,400ms,800ms',
    WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,800ms',
    WEBHOOK_ALLOW_PRIVATE: '1',
    ...env,
  });
  const log = createLogger(config.logLevel === 'silent' ? 'silent' : config.logLevel);
  // Each projector's leader holds one connection for good; the rest serve requests and process managers.
  const booted = await boot(config, { log, poolSize: 40 });
  await booted.startWorkers();
  const state: AppState = { ready: true };
  const app = createApp(booted.services, state, { onResponseMismatch: failOnResponseMismatch });
  const { origin, close } = await serveOnFreePort(app, booted);
  const { services } = booted;

  const settle = async () => {
    const head = await committedHeadOn(services.pool);
    const { projectors } = await import('../../src/projections/all.ts');
    // Generous: on a loaded machine a projector may take a while, and a test reading too early fails unclearly.
    const reached = await services.waiter.waitFor(projectors.map((p) => p.name), head, 60_000);
    if (!reached) throw new Error('the projectors did not reach the head of the store within 60 s');
  };

  const newKey = async (organizationId: string, scopes: string[], expiresAt: string | null = null) => {
    const created = await createApiKey(services.store, { organizationId, name: 'test key', scopes, expiresAt }, new Date());
    await services.waiter.waitFor(['access'], created.position, 10_000);
    return { key: created.key, keyId: created.id };
  };

  return {
    origin,
    services,
    db,
    booted,
    newKey,
    settle,
    async newOrganization(options = {}) {
      const org = await createOrganization(services.store, { name: options.name ?? 'Test org', timezone: options.timezone, currency: options.currency }, new Date());
      const { key, keyId } = await newKey(org.id, options.scopes ?? [...ALL_SCOPES], options.expiresAt ?? null);
      return { organizationId: org.id, key, keyId };
    },
    request: requester(origin),
    async stop() {
      await close();
      await db.drop();
    },
  };
}
