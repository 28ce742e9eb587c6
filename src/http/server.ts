// The Node HTTP server around the app: requests Node refuses before Express sees them (a request line or headers
// over the 16 KB limit, a malformed request) still get the specification's error body, not an empty answer, with
// the headers every answer carries (X-Request-Id and the rate limit). Until the app is handed over, the server
// answers on its own: GET /healthz 503 while the service starts (DESIGN.md), anything else 500 internal_error.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { ApiError, validationError } from '../../commands/shared/errors.ts';
import { pickLanguage } from './messages.ts';
import { addressBucket, limitHeaders, type RateLimiter } from './ratelimit.ts';
import { errorBody } from './render.ts';

export interface StartingServer {
  server: http.Server;
  /** From now on every request goes to `app`. */
  serve(app: Express): void;
  /**
   * The stop: no new connection is taken, the requests in flight are answered (for up to `graceMs`), each
   * connection is closed after its answer, then any left are cut. Resolves once the server holds no connection.
   */
  drain(graceMs: number): Promise<void>;
}

/** A server that can listen before the service is ready, so /healthz says "starting" (503) instead of nothing. */
export function createStartingServer(): StartingServer {
  let handler: http.RequestListener = answerStarting;
  let limiter: RateLimiter | undefined;
  let draining = false;
  // The answers still to send: a stop waits for them before it closes the connections and the database.
  const inFlight = new Set<http.ServerResponse>();
  let allAnswered: () => void = () => {};
  // Connections whose request has been answered before its body arrived in full (a stalled upload answered at its
  // time-out, a body refused for its size): Node may still raise a client error on them, which must not be answered.
  const answeredEarly = new WeakSet<Socket>();
  const onRequest: http.RequestListener = (req, res) => {
    inFlight.add(res);
    res.once('finish', () => {
      if (req.complete) return;
      answeredEarly.add(req.socket);
      req.once('end', () => answeredEarly.delete(req.socket));
    });
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) allAnswered();
    });
    // A request that came on a kept-alive connection during a stop: answered, and its connection closed after it.
    if (draining) res.setHeader('Connection', 'close');
    if (req.httpVersion === '1.1' && req.headers.host === undefined) return void refuseWithoutHost(req, res, limiter);
    handler(req, res);
  };
  // Node refused an HTTP/1.1 request without Host itself, with an empty 400: refuseWithoutHost answers it instead.
  const server = http.createServer({ requireHostHeader: false }, onRequest);
  // CONNECT (a proxy's method) never reaches the request listener: without this, Node closed the connection unanswered.
  server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    const error = new ApiError('route_not_found', { method: req.method, path: req.url });
    void answerOnSocket(socket, limiter, '404 Not Found', errorBody(error, pickLanguage(req.headers['accept-language'])));
  });
  // Node answers an expectation other than 100-continue itself, 417 with no body and none of the headers every answer
  // carries; a server may ignore it (RFC 9110, 10.1.1), so the request is served as any other.
  server.on('checkExpectation', onRequest);
  // Idle keep-alive connections outlive the clients' and load balancers' own idle time-outs (60 s is common), so a
  // client never sends a request on a socket the server is just closing ("socket hang up" / "fetch failed").
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // An answer is under way or already sent for this request: a second one would be read as the next request's.
    const current = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (answeredEarly.has(socket) || current?.headersSent) return void socket.destroy();
    void answerClientError(error, socket, limiter);
  });
  return {
    server,
    serve(app) {
      limiter = app.locals.rateLimiter as RateLimiter | undefined;
      handler = app;
    },
    async drain(graceMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (inFlight.size > 0) {
        await new Promise<void>((resolve) => {
          allAnswered = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      }
      server.closeAllConnections();
      await closed;
    },
  };
}

export function createHttpServer(app: Express): http.Server {
  const { server, serve } = createStartingServer();
  serve(app);
  return server;
}

/** Before the app exists (database, migrations, workers still starting): nothing is read or written. */
function answerStarting(req: http.IncomingMessage, res: http.ServerResponse): void {
  const health = (req.method === 'GET' || req.method === 'HEAD') && (req.url ?? '').split('?')[0] === '/healthz';
  const body = health ? { status: 'starting' } : errorBody(new ApiError('internal_error'), pickLanguage(req.headers['accept-language']));
  const text = JSON.stringify(body);
  res.writeHead(health ? 503 : 500, {
    'X-Request-Id': randomUUID(), 'Retry-After': '1', 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** The key was not read: the request counts for the client's address, as every request without a valid key. */
async function addressLimits(socket: Socket, limiter: RateLimiter | undefined): Promise<Record<string, string>> {
  return (await limiter?.hit(addressBucket(socket.remoteAddress)).then(limitHeaders, () => ({}))) ?? {};
}

function answerHeaders(limits: Record<string, string>, text: string): Record<string, string> {
  return { 'X-Request-Id': randomUUID(), ...limits, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), Connection: 'close' };
}

async function answerClientError(error: NodeJS.ErrnoException, socket: Socket, limiter: RateLimiter | undefined): Promise<void> {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  // The request was not read, so its Accept-Language is unknown: the default language (Polish).
  await answerOnSocket(socket, limiter, '400 Bad Request', errorBody(validationError('request', requestProblem(error)), 'pl'));
}

/** An answer written on the socket itself, where Node gives no response object (a refused request, CONNECT). */
async function answerOnSocket(socket: Socket, limiter: RateLimiter | undefined, status: string, body: unknown): Promise<void> {
  const limits = await addressLimits(socket, limiter);
  if (!socket.writable) return void socket.destroy();
  const text = JSON.stringify(body);
  const head = Object.entries(answerHeaders(limits, text)).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status}\r\n${head}\r\n${text}`);
}

/** HTTP/1.1 requires a Host header (RFC 9112, 3.2): 400, in the error body every refusal has. */
async function refuseWithoutHost(req: http.IncomingMessage, res: http.ServerResponse, limiter: RateLimiter | undefined): Promise<void> {
  const limits = await addressLimits(req.socket, limiter);
  const text = JSON.stringify(errorBody(validationError('Host', 'an HTTP/1.1 request needs a Host header'), pickLanguage(req.headers['accept-language'])));
  res.writeHead(400, answerHeaders(limits, text));
  res.end(text);
}

function requestProblem(error: NodeJS.ErrnoException): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'request line or headers over 16 KB';
  // Node's headersTimeout (66 s) or requestTimeout: the client stopped sending, its request was not malformed.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'the request did not arrive in full in time';
  return 'malformed HTTP request';
}
