// Registers route-table entries on Express: scope check, zod validation of params, query and body, the
// handler, and the response.
import type { Request, Response, NextFunction, RequestHandler, Router } from 'express';
import type { z } from 'zod';
import type { Services } from '../services.ts';
import { requireScope } from './auth.ts';
import { fromZodError, languageOf } from './render.ts';
import type { Caller, RouteDef } from './route.ts';

function parse(schema: z.ZodType | undefined, value: unknown, where: 'body' | 'query' | 'params'): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, where);
  return result.data;
}

export interface RouteHooks {
  /** The JSON body parser; per route, so that a path the table lacks is 404 whatever its body. */
  parseBody?: RequestHandler;
  /** Runs before every POST route (Idempotency-Key). */
  idempotency?: RequestHandler;
}

/**
 * A body that is JSON text already, with the headers res.json would set. The idempotency record of a
 * POST captures answers given through res.json, so there the text goes that way (parsed once more).
 */
function sendJsonText(req: Request, res: Response, status: number, text: string): void {
  if (req.method === 'POST') {
    res.status(status).json(JSON.parse(text));
    return;
  }
  if (!res.get('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.status(status).send(text);
}

/** Express paths use :id; the route table writes them the same way. */
export function registerRoute(router: Router, route: RouteDef, services: Services, hooks: RouteHooks = {}): void {
  const before: RequestHandler[] = hooks.parseBody ? [hooks.parseBody] : [];
  if (route.method === 'post' && hooks.idempotency) before.push(hooks.idempotency);
  router[route.method](route.path, ...before, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const caller = res.locals.caller as Caller;
      requireScope(caller, route.scope);
      const params = parse(route.params, req.params, 'params');
      const query = parse(route.query, req.query ?? {}, 'query');
      const body = route.body ? parse(route.body, req.body ?? {}, 'body') : undefined;
      const result = await route.handler({
        params, query, body, caller, services,
        requestId: res.locals.requestId as string,
        metadata: { organizationId: caller.organizationId, correlationId: res.locals.requestId as string, actor: `key:${caller.keyId}` },
        language: languageOf(req),
        header: (name) => req.get(name),
      });
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.rawBody !== undefined) sendJsonText(req, res, result.status, result.rawBody);
      else if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    } catch (error) {
      next(error);
    }
  });
}
