// A real webhook receiver for tests: node:http(s) on a local port, recording connections and requests.
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { TEST_CERT, TEST_KEY } from './tls-fixture.ts';

export interface ReceivedPush {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** 1-based number of the TCP connection it came on. */
  connection: number;
  /** TLS server name (SNI) the client asked for, or undefined on plain HTTP. */
  servername: string | undefined;
  /** Requests seen so far on that connection, this one included. */
  onConnection: number;
}

export type ReceiverHandler = (push: ReceivedPush, res: ServerResponse) => void;

export interface Receiver {
  port: number;
  url(path?: string): string;
  received: ReceivedPush[];
  connections(): number;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  host?: string;
  port?: number;
  tls?: boolean;
}

export { TEST_CERT };

export async function startReceiver(handler: ReceiverHandler, options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const received: ReceivedPush[] = [];
  const sockets = new Map<Socket, { number: number; requests: number }>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socketInfo = sockets.get(req.socket) ?? { number: 0, requests: 0 };
      socketInfo.requests += 1;
      const push: ReceivedPush = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection: socketInfo.number,
        servername: (req.socket as TLSSocket).servername || undefined,
        onConnection: socketInfo.requests,
      };
      received.push(push);
      handler(push, res);
    });
  };
  const server: Server = options.tls ? createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, onRequest) : createHttpServer(onRequest);
  server.on('connection', (socket: Socket) => sockets.set(socket, { number: sockets.size + 1, requests: 0 }));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    port,
    url: (path = '/hook') => `${origin}${path}`,
    received,
    connections: () => sockets.size,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port with nothing listening on it (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A lookup that answers from a script, one answer per call (the last one repeats), counting calls. */
export function scriptedLookup(...answers: string[][]) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    return answer.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return { lookup, calls };
}
