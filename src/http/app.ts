// The Express application: /healthz, the /v1 route table, authentication, limits, and JSON errors.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../../commands/shared/errors.ts';
import type { Services } from '../services.ts';
import { authenticate, KeyCache } from './auth.ts';
import { registerRoute } from './register.ts';
import { sendError, toApiError } from './render.ts';
import { routes } from './routes.ts';

export interface AppState {
  ready: boolean;
}

export interface AppExtras {
  keys: KeyCache;
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createApp(services: Services, state: AppState, extras: AppExtras = { keys: new KeyCache(services.pool) }): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
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
  });

  app.get('/healthz', (_req, res) => {
    res.status(state.ready ? 200 : 503).json({ status: state.ready ? 'ok' : 'starting' });
  });

  const v1 = express.Router();
  v1.use(async (req, res, next) => {
    try {
      const { caller } = await authenticate(req.get('authorization'), extras.keys, services.now());
      res.locals.caller = caller;
      next();
    } catch (error) {
      next(error);
    }
  });
  // Bodies: at most 64 KB (checked from Content-Length before reading), always parsed as JSON.
  v1.use(express.json({ limit: '64kb', type: () => true, strict: true }));
  for (const route of routes) registerRoute(v1, route, services);
  app.use('/v1', v1);

  app.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('route_not_found', { method: req.method, path: req.path })));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { apiError, unexpected } = toApiError(error);
    if (unexpected) services.log.error('unexpected error', { requestId: res.locals.requestId, error });
    if (res.headersSent) return;
    sendError(req, res, apiError);
  });
  return app;
}
