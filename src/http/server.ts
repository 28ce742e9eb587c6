// The Node HTTP server around the app: requests Node refuses before Express sees them (a request line or headers
// over the 16 KB limit, a malformed request) still get the specification's error body, not an empty answer.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { validationError } from '../../commands/shared/errors.ts';
import { errorBody } from './render.ts';

export function createHttpServer(app: Express): http.Server {
  const server = http.createServer(app);
  // Idle keep-alive connections outlive the clients' and load balancers' own idle time-outs (60 s is common), so a
  // client never sends a request on a socket the server is just closing ("socket hang up" / "fetch failed").
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket));
  return server;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  // The request was not read, so its Accept-Language is unknown: the default language (Polish).
  const body = JSON.stringify(errorBody(validationError('request', requestProblem(error)), 'pl'));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function requestProblem(error: NodeJS.ErrnoException): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'request line or headers over 16 KB';
  return 'malformed HTTP request';
}
