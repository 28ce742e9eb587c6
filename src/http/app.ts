// The Express application: request id and time-out, /healthz, then for everything else authentication -> rate limit
// -> body parser -> idempotency (POST) -> route, with every failure rendered as the one JSON error body.
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../services.ts';
import { refuseDeclaredOver } from './bodyLimit.ts';
import { KeyCache } from './auth.ts';
import { docsRouter } from './docs.ts';
import { authenticateRequest, routeNotFound } from './gate.ts';
import { Idempotency, keepLateAnswer } from './idempotency.ts';
import { watchKeyChanges } from './keyEvents.ts';
import { buildOpenApi } from './openapi.ts';
import { RATE_LIMIT_PER_MINUTE, rateLimit, RateLimiter } from './ratelimit.ts';
import { registerRoute } from './register.ts';
import { errorBody, languageOf, NOT_UTF8, sendError, toApiError } from './render.ts';
import type { OnResponseMismatch } from './responseCheck.ts';
import type { RouteDef } from './route.ts';
import { routes as routeTable } from './routes.ts';
import { readingBody, requestTimeout, timedOut } from './timeout.ts';
import { WritesInFlight } from './writesInFlight.ts';
import { mountPlatformWebhook } from '../routes/platformWebhook.ts';

export interface AppState {
  ready: boolean;
}

export interface AppExtras {
  keys?: KeyCache;
  /** The route table (tests add routes of their own). */
  routes?: readonly RouteDef[];
  /** Requests per minute and key (the benchmark raises it so that it measures the full path). */
  rateLimitPerMinute?: number;
  /** Listen for key revocations (NOTIFY); default on. */
  watchKeys?: boolean;
  /** The bound on every request (default: the config's REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /**
   * Tests only, never in production (main.ts does not pass it): check every successful answer against its route's
   * success schema, strictly, and call this with each mismatch (src/http/responseCheck.ts).
   */
  onResponseMismatch?: OnResponseMismatch;
}

/** The specification's limit on request bodies: 64 KB. */
const BODY_LIMIT_BYTES = 64 * 1024;

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestContext(services: Services) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    const requestId = given && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      services.log.info('request', {
        requestId, organizationId: res.locals.caller?.organizationId, method: req.method, path: req.path,
        status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
}

function v1Router(services: Services, routes: readonly RouteDef[], onResponseMismatch?: OnResponseMismatch): express.Router {
  // Case-sensitive like the app: /v1/ME is no route, as /V1/me is no /v1 path (see createApp).
  const v1 = express.Router({ caseSensitive: true });
  // Express would answer OPTIONS itself (text, with Allow); this API has no CORS and no OPTIONS.
  v1.use((req, _res, next) => next(req.method === 'OPTIONS' ? 'router' : undefined));
  const document = buildOpenApi(routes);
  v1.get('/openapi.json', (_req, res) => { res.json(document); });
  v1.use('/docs', docsRouter());
  // Bodies: at most 64 KB (refused from Content-Length before reading), always parsed as JSON, in UTF-8.
  const parseBody = readingBody(refuseDeclaredOver(BODY_LIMIT_BYTES,
    utf8Json(express.json({ limit: BODY_LIMIT_BYTES, type: () => true, strict: true, verify: refuseNonUtf8 }))));
  const idempotency = new Idempotency(services);
  const writes = new WritesInFlight(routes.flatMap((r) => (r.afterWrites ? [r.afterWrites] : [])));
  for (const route of routes) registerRoute(v1, route, services, { parseBody, idempotency: idempotency.middleware, writes, onResponseMismatch });
  return v1;
}

/**
 * JSON is UTF-8 whatever a charset parameter says: RFC 8259 defines none ("no effect on compliant recipients").
 * The body parser honoured it, so a valid body sent as `charset=utf8` or `us-ascii` was 400 invalid_json.
 */
function utf8Json(parseJson: express.RequestHandler): express.RequestHandler {
  return (req, res, next) => {
    const type = req.headers['content-type'];
    if (type) req.headers['content-type'] = type.replace(/;\s*charset\s*=\s*("[^"]*"|[^;]*)/gi, '');
    parseJson(req, res, next);
  };
}

/**
 * JSON text is UTF-8 (RFC 8259, 8.1): bytes that are not (Latin-1 or UTF-16 text, a cut sequence) make a body
 * that is not JSON, so invalid_json. The decoder would have read each such byte as U+FFFD and stored that.
 */
function refuseNonUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('the body is not UTF-8'), { type: NOT_UTF8 });
}

export function createApp(services: Services, state: AppState, extras: AppExtras = {}): express.Express {
  const keys = extras.keys ?? new KeyCache(services.pool);
  const routes = extras.routes ?? routeTable;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  // Paths are case-sensitive, as the key check reads them (gate.ts): Express's default case-insensitive routing
  // let /V1/me, which the check takes for a path outside the API, reach a route handler with no caller (a 500).
  app.set('case sensitive routing', true);

  app.use(requestContext(services));
  // Every request, /healthz and the platform's webhook included: none may wait on a database that stopped answering.
  app.use(requestTimeout(extras.requestTimeoutMs ?? services.config.requestTimeoutMs, services.log));
  app.get('/healthz', (_req, res) => {
    res.status(state.ready ? 200 : 503).json({ status: state.ready ? 'ok' : 'starting' });
  });
  mountPlatformWebhook(app, services); // leadgen webhook: outside /v1, raw body, signed by the platform, no key or rate limit
  app.use(authenticateRequest(keys, services));
  const limiter = new RateLimiter(services.pool, services.now, extras.rateLimitPerMinute ?? RATE_LIMIT_PER_MINUTE);
  // The HTTP server counts the requests Node refuses before they reach the app (createHttpServer).
  app.locals.rateLimiter = limiter;
  app.use(rateLimit(limiter));
  app.use('/v1', v1Router(services, routes, extras.onResponseMismatch));
  app.use(routeNotFound(routes));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { apiError, unexpected } = toApiError(error);
    // Answered by its time-out already (and logged then): a late failure is one more line only at debug level, and
    // kept for its Idempotency-Key as it would have been sent.
    if (timedOut(res)) {
      services.log.debug('failure after the request timed out', { requestId: res.locals.requestId, error });
      return keepLateAnswer(res, apiError.status, {}, errorBody(apiError, languageOf(req)));
    }
    if (unexpected) services.log.error('unexpected error', { requestId: res.locals.requestId, error });
    if (res.headersSent) return;
    sendError(req, res, apiError);
  });

  const url = services.pool.options.connectionString;
  const watcher = extras.watchKeys === false || !url ? null : watchKeyChanges(keys, url, services.log);
  app.locals.close = async () => { await watcher?.close(); };
  return app;
}

/** Stop what the app holds open (its key-change listener); call after the HTTP server has closed. */
export async function closeApp(app: express.Express): Promise<void> {
  await (app.locals.close as (() => Promise<void>) | undefined)?.();
}
