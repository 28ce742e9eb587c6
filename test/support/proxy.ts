// A TCP proxy in front of PostgreSQL that a test can take down and bring back on the same port: the service
// behind it sees the database go away (connections cut, new ones refused) and return, as after a restart.
import net from 'node:net';

export interface DatabaseProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Cut every connection and refuse new ones. */
  down(): Promise<void>;
  /** Accept connections again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startDatabaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return { url: url.toString(), down, up: () => listen(port), close: down };
}
