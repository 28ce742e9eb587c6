// The bound on every request: a database that stops answering without closing anything would hold a request (and
// its client) until it answers again. A timer per request answers 500 internal_error when it fires first (400
// invalid_json while the client has not yet sent the body it announced); the handler still running is left to
// finish, and whatever it answers later is dropped (docs/http.md). A timer, not an AsyncLocalStorage deadline on
// each query: on Node 20 the async context cost 15-38% of the throughput.
import http from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../commands/shared/errors.ts';
import type { Logger } from '../logger.ts';
import { errorBody, languageOf } from './render.ts';
import { TIMED_OUT } from './messages.ts';

/** Headers of this exchange that the time-out's answer keeps; anything a handler had set for its own answer goes. */
const KEPT = new Set(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']);

/** The request was answered by its time-out: what its handler answers later is not sent. */
export function timedOut(res: Response): boolean {
  return res.locals.timedOut === true;
}

export function requestTimeout(ms: number, log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      res.locals.timedOut = true;
      if (res.locals.readingBody === true && !req.complete) {
        log.warn('request body not received in time', { requestId: res.locals.requestId, method: req.method, path: req.path, ms });
        return sendBodyLate(req, res, ms);
      }
      log.error('request timed out', { requestId: res.locals.requestId, method: req.method, path: req.path, ms });
      sendTimedOut(req, res);
    }, ms);
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/**
 * The body parser, marked while it waits for the request's body: a time-out meanwhile is the client's delay in sending
 * the body it announced, not the database's, and nothing has run yet.
 */
export function readingBody(parse: RequestHandler): RequestHandler {
  return (req, res, next) => {
    res.locals.readingBody = true;
    parse(req, res, (error?: unknown) => {
      res.locals.readingBody = false;
      next(error);
    });
  };
}

function sendTimedOut(req: Request, res: Response): void {
  const language = languageOf(req);
  const body = errorBody(new ApiError('internal_error'), language);
  body.error.message = TIMED_OUT[language];
  sendPlain(res, 500, body);
}

/** A body that has not arrived in full is no JSON text: invalid_json, saying what did not come. */
function sendBodyLate(req: Request, res: Response, ms: number): void {
  const length = req.headers['content-length'];
  const expected = `the whole body${length === undefined ? '' : ` (${length} bytes)`} within ${ms} ms`;
  sendPlain(res, 400, errorBody(new ApiError('invalid_json', { expected }), languageOf(req)));
}

/**
 * Written with the plain ServerResponse methods: the Idempotency-Key capture wraps res.json and res.end to store the
 * answer first, which waits on the very database that does not answer.
 */
function sendPlain(res: Response, status: number, body: unknown): void {
  for (const name of res.getHeaderNames()) if (!KEPT.has(name)) res.removeHeader(name);
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  const end: (this: Response, chunk: string) => void = http.ServerResponse.prototype.end;
  end.call(res, text);
}
