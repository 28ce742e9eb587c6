// LISTEN/NOTIFY through pg-listen, which reconnects with backoff. Its CommonJS default export is
// reached differently by tsx and by Node's ESM loader, so it is resolved once here.
import * as pgListenModule from 'pg-listen';
import type { Subscriber } from 'pg-listen';

type Create = (
  connectionConfig: { connectionString: string },
  options?: { retryLimit?: number; retryTimeout?: number; retryInterval?: (attempt: number) => number; parse?: (s: string) => unknown; serialize?: (v: unknown) => string },
) => Subscriber;

const moduleValue = pgListenModule as unknown as { default: Create | { default: Create } };
const create: Create = typeof moduleValue.default === 'function' ? moduleValue.default : moduleValue.default.default;

export type Listener = Subscriber;

const RETRY_MS = 500;

/**
 * A listener whose payloads are plain strings; a lost connection is retried for as long as the database is away
 * (pg-listen's default gives up 3 s into an outage, silently and for good: read-your-writes across processes, key
 * revocations and wake-ups then went without their notices until a restart), and until close().
 */
export function createListener(connectionString: string): Listener {
  let closed = false;
  const listener = create({ connectionString }, {
    retryLimit: Infinity,
    retryTimeout: Infinity,
    // Asked between two attempts: pg-listen's close() does not end a reconnection under way, this does.
    retryInterval: () => {
      if (closed) throw new Error('the listener is closed');
      return RETRY_MS;
    },
    parse: (s) => s,
    serialize: (v) => String(v),
  });
  listener.events.on('error', () => {});
  const close = listener.close.bind(listener);
  // An attempt already under way at close() may still connect: that connection is closed as it comes.
  listener.events.on('connected', () => { if (closed) void close().catch(() => {}); });
  listener.close = () => {
    closed = true;
    return close();
  };
  return listener;
}
