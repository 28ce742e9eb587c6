// The first stops of every metered request: who is calling (bearer key) and what is public, and the
// 404 answer for paths and methods the route table does not have.
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../../commands/shared/errors.ts';
import type { Services } from '../services.ts';
import { authenticate, type KeyCache } from './auth.ts';
import type { RouteDef } from './route.ts';
import { PLATFORM_WEBHOOK_PATH } from '../routes/platformWebhook.ts';

/** Paths that need no key: the API description and its reference page; anything outside /v1 is not the API. */
export function isPublicPath(path: string): boolean {
  if (path !== '/v1' && !path.startsWith('/v1/')) return true;
  // With or without a trailing slash, as every route (Express's non-strict routing) and routeNotFound take it.
  return path === '/v1/openapi.json' || path === '/v1/openapi.json/' || path === '/v1/docs' || path.startsWith('/v1/docs/');
}

/**
 * The request's one Authorization field. Node keeps the first of several and drops the rest, so a request with
 * two keys (a proxy's and the caller's) was answered for the first one; two are a wrong format (401 unauthorized).
 */
function authorizationOf(req: Request): string | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'authorization') count++;
  return count > 1 ? undefined : req.get('authorization');
}

/**
 * Sets res.locals.caller, or res.locals.authError for the rate limiter to report after counting the
 * request against the client address.
 */
export function authenticateRequest(keys: KeyCache, services: Pick<Services, 'now'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (isPublicPath(req.path)) return next();
    try {
      res.locals.caller = (await authenticate(authorizationOf(req), keys, services.now())).caller;
    } catch (error) {
      res.locals.authError = error;
    }
    if (!res.headersSent) next(); // else answered by its time-out meanwhile: nothing more to do
  };
}

/** 404 route_not_found; for a known path asked with another method, Allow lists the methods it has. */
export function routeNotFound(routes: readonly RouteDef[]) {
  const known = routes.map((r) => ({
    method: r.method.toUpperCase(),
    pattern: new RegExp(`^/v1${r.path.replace(/:\w+/g, '[^/]+')}/?$`),
  }));
  known.push({ method: 'GET', pattern: /^\/v1\/openapi\.json$/ });
  // The two paths the app answers before authentication (app.ts): another method on them is a known path too.
  known.push({ method: 'GET', pattern: /^\/healthz\/?$/ });
  for (const method of ['GET', 'POST']) known.push({ method, pattern: new RegExp(`^${PLATFORM_WEBHOOK_PATH}/?$`) });
  return (req: Request, res: Response, next: NextFunction) => {
    const methods = new Set(known.filter((k) => k.pattern.test(req.path)).map((k) => k.method));
    if (methods.has('GET')) methods.add('HEAD');
    if (methods.size) res.setHeader('Allow', [...methods].join(', '));
    next(new ApiError('route_not_found', { method: req.method, path: req.path }));
  };
}
