// A TCP proxy in front of PostgreSQL that a test can take down and bring back on the same port: the service
// behind it sees the database go away (connections cut, new ones refused) and return, as after a restart. Or it
// freezes: nothing is closed, nothing is answered (a database whose processes are stopped, packets dropped).
import net from 'node:net';

export interface DatabaseProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Cut every connection and refuse new ones. */
  down(): Promise<void>;
  /** Accept connections again, on the same port. */
  up(): Promise<void>;
  /** Forward nothing more, either way, on open and new connections, and close nothing: the bytes wait. */
  freeze(): void;
  /** Forward again, the bytes that waited first. */
  thaw(): void;
  close(): Promise<void>;
}

export async function startDatabaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let frozen = false;
  const forward = ([client, upstream]: [net.Socket, net.Socket]) => { client.pipe(upstream); upstream.pipe(client); };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    for (const socket of pair) {
      sockets.add(socket);
      socket.on('close', () => { sockets.delete(socket); pairs.delete(pair); });
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    // A new connection while frozen is accepted (as a stopped server's kernel does) and left unanswered.
    if (!frozen) forward(pair);
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
  // unpipe leaves each socket paused: what arrives stays in the kernel's buffers until thaw pipes it on.
  const freeze = () => {
    frozen = true;
    for (const [client, upstream] of pairs) { client.unpipe(upstream); upstream.unpipe(client); client.pause(); upstream.pause(); }
  };
  const thaw = () => {
    frozen = false;
    for (const pair of pairs) forward(pair);
  };
  return { url: url.toString(), down, up: () => listen(port), freeze, thaw, close: down };
}
