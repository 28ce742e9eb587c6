// Registers route-table entries on Express: scope check, zod validation of params, query and body, the
// handler, and the response.
import type { Request, Response, NextFunction, RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { Services } from '../services.ts';
import { ApiError, validationError } from '../../commands/shared/errors.ts';
import { requireScope } from './auth.ts';
import { fromZodError, languageOf } from './render.ts';
import { keepLateAnswer } from './idempotency.ts';
import { checkAnswer, strictSchema, type OnResponseMismatch } from './responseCheck.ts';
import { parseRawBody, type Caller, type RouteDef, type RouteResult } from './route.ts';
import type { WritesInFlight } from './writesInFlight.ts';
import { unstorableText } from '../../commands/shared/text.ts';

function parse(schema: z.ZodType | undefined, value: unknown, where: 'body' | 'query' | 'params'): unknown {
  const bad = unstorableText(value);
  if (bad) throw validationError(bad.path || where, bad.problem);
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, where, value);
  return result.data;
}

/**
 * Every name and value of the query must decode: the query parser reads a broken percent-encoding leniently (a U+FFFD,
 * or the % kept), so `?tag=%E0%A4%A` filtered on a tag nobody wrote, where the same bytes in the path are 400
 * (render.ts). The field is the parameter's name, as written when it does not decode itself.
 */
function refuseMalformedQuery(url: string): void {
  const start = url.indexOf('?');
  if (start < 0) return;
  const decodes = (text: string) => {
    try {
      decodeURIComponent(text.replace(/\+/g, ' '));
      return true;
    } catch {
      return false;
    }
  };
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (decodes(name) && decodes(pair.slice(name.length + 1))) continue;
    throw validationError(decodes(name) ? decodeURIComponent(name.replace(/\+/g, ' ')) : name, 'malformed percent-encoding');
  }
}

/**
 * What a route that declares no body or no query takes: nothing, or an empty object. Any field in it is
 * unknown (a body field 400 invalid_json, as on every other POST; a query parameter validation_error, as on
 * every other route), never silently ignored.
 */
const NOTHING = z.object({}).strict();

/**
 * The body parser of a POST that takes no body: a body over the size limit cannot be `{}`, so it is the
 * unknown content NOTHING refuses (invalid_json), not 413, which the spec keeps off these endpoints.
 */
function noBodyParser(parseBody: RequestHandler): RequestHandler {
  return (req, res, next) => parseBody(req, res, (error?: unknown) => {
    if ((error as { type?: string } | undefined)?.type === 'entity.too.large') next(new ApiError('invalid_json', { expected: 'no body, or {}' }));
    else next(error);
  });
}

/** Deeper than any body of this API reads (an object, an array in it, its items); JSON.parse takes far deeper ones. */
const MAX_BODY_DEPTH = 32;

function deeperThan(value: unknown, levels: number): boolean {
  if (!value || typeof value !== 'object') return false;
  if (levels === 0) return true;
  for (const key in value) {
    if (Object.hasOwn(value, key) && deeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}

/**
 * Right after the body parser: a body nested thousands of levels deep would overflow the stack of every recursive
 * walk after it (the text check, the Idempotency-Key fingerprint, JSON.stringify), a 500. It is refused as its
 * schema refuses it (zod stops at the first level that does not fit): an unknown field invalid_json, a known
 * field's bad value validation_error naming it.
 */
function refuseDeepBody(schema: z.ZodType): RequestHandler {
  return (req, _res, next) => {
    if (!deeperThan(req.body, MAX_BODY_DEPTH)) return next();
    const tooDeep = validationError('body', `nested more than ${MAX_BODY_DEPTH} levels deep`);
    try {
      const result = schema.safeParse(req.body);
      next(result.success ? tooDeep : fromZodError(result.error, 'body', req.body));
    } catch {
      next(tooDeep);
    }
  };
}

export interface RouteHooks {
  /** The JSON body parser; per route, so that a path the table lacks is 404 whatever its body. */
  parseBody?: RequestHandler;
  /** Runs before every POST route (Idempotency-Key). */
  idempotency?: RequestHandler;
  /** The write handlers running, which a route marked afterWrites waits for (src/http/writesInFlight.ts). */
  writes?: WritesInFlight;
  /**
   * Tests only (never set in production): check each successful answer against the route's success schema,
   * strictly, and report a mismatch here before answering 500 instead (src/http/responseCheck.ts).
   */
  onResponseMismatch?: OnResponseMismatch;
}

/**
 * A body that is JSON text already (whole, or in parts such as a list's envelope around its page), with
 * the headers res.json would set. The idempotency record of a POST captures answers given through
 * res.json, so there the text goes that way (parsed once more). Other answers write the parts as they
 * are, corked into one socket write with the headers: res.send would first join them into one string and
 * copy that into a Buffer, two more copies of a 35-65 KB page per request and a measurable share of a
 * list's cost (docs/speed/contacts-and-leads.md, session 4).
 */
function sendJsonText(req: Request, res: Response, status: number, text: string | readonly string[]): void {
  if (req.method === 'POST') {
    res.status(status).json(JSON.parse(typeof text === 'string' ? text : text.join('')));
    return;
  }
  const parts = typeof text === 'string' ? [text] : text;
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  if (!res.get('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', length);
  res.statusCode = status;
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  res.uncork();
}

/** The answer of a request its time-out has answered meanwhile: not sent, kept only for its Idempotency-Key. */
function dropLateAnswer(req: Request, res: Response, services: Services, result: RouteResult): void {
  services.log.debug('answer after the request timed out dropped', { requestId: res.locals.requestId, status: result.status });
  if (req.method !== 'POST') return;
  const body = result.rawBody === undefined ? result.body : parseRawBody(result.rawBody);
  keepLateAnswer(res, result.status, result.headers ?? {}, body);
}

/**
 * The key's scope, before the body is parsed or the Idempotency-Key read: a key without it is 403 whatever it
 * sends, as it already was whatever its parameters (the body parser used to answer first, 400 or 413).
 */
function checkScope(scope: RouteDef['scope']): RequestHandler {
  return (_req, res, next) => {
    try {
      requireScope(res.locals.caller as Caller, scope);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Express paths use :id; the route table writes them the same way. */
export function registerRoute(router: Router, route: RouteDef, services: Services, hooks: RouteHooks = {}): void {
  const takesNoBody = !route.body && route.method === 'post';
  // A DELETE takes no body either: a field in one is unknown (invalid_json), as on a POST without a body. Unlike
  // those two POSTs (test, rotate-secret), the spec keeps 413 on it, so its body is read by the usual parser.
  const refusesBody = takesNoBody || (!route.body && route.method === 'delete');
  const before: RequestHandler[] = [checkScope(route.scope)];
  if (hooks.parseBody) before.push(takesNoBody ? noBodyParser(hooks.parseBody) : hooks.parseBody);
  if (hooks.parseBody && (route.body || refusesBody)) before.push(refuseDeepBody(route.body ?? NOTHING));
  if (route.method === 'post' && hooks.idempotency) before.push(hooks.idempotency);
  const { onResponseMismatch } = hooks;
  // Built now, so that a schema the check cannot make strict stops the test server from starting.
  if (onResponseMismatch && route.success.schema) strictSchema(route.success.schema);
  router[route.method](route.path, ...before, async (req: Request, res: Response, next: NextFunction) => {
    // Answered by its time-out while waiting in the middleware (src/http/timeout.ts): the operation does not start.
    if (res.headersSent) return;
    try {
      const caller = res.locals.caller as Caller;
      const params = parse(route.params, req.params, 'params');
      refuseMalformedQuery(req.originalUrl);
      const query = parse(route.query ?? NOTHING, req.query ?? {}, 'query');
      const body = route.body ? parse(route.body, req.body ?? {}, 'body') : undefined;
      if (refusesBody) parse(NOTHING, req.body ?? {}, 'body');
      if (route.afterWrites && hooks.writes) await hooks.writes.settled(caller.organizationId, route.afterWrites);
      // A write's handler stamps its events and returns once they show: until then lists marked afterWrites wait.
      const written = route.method === 'get' ? undefined : hooks.writes?.begin(caller.organizationId, route.path);
      let result: RouteResult;
      try {
        result = await route.handler({
          params, query, body, caller, services,
          requestId: res.locals.requestId as string,
          metadata: {
            organizationId: caller.organizationId, correlationId: res.locals.requestId as string, actor: `key:${caller.keyId}`,
            ...(res.locals.idempotencyClaim ? { idempotencyClaim: res.locals.idempotencyClaim as string } : {}),
          },
          language: languageOf(req),
          header: (name) => req.get(name),
        });
      } finally {
        written?.();
      }
      // Answered by its time-out meanwhile: this answer is dropped (the client has its 500 and the connection goes on).
      if (res.headersSent) return dropLateAnswer(req, res, services, result);
      if (onResponseMismatch) checkAnswer(route, req.originalUrl, result, onResponseMismatch);
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.rawBody !== undefined) sendJsonText(req, res, result.status, result.rawBody);
      else if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    } catch (error) {
      next(error);
    }
  });
}
