// LISTEN/NOTIFY through pg-listen, which reconnects with backoff. Its CommonJS default export is
// reached differently by tsx and by Node's ESM loader, so it is resolved once here.
import * as pgListenModule from 'pg-listen';
import type { Subscriber } from 'pg-listen';

type Create = (connectionConfig: { connectionString: string }, options?: { retryLimit?: number; parse?: (s: string) => unknown; serialize?: (v: unknown) => string }) => Subscriber;

const moduleValue = pgListenModule as unknown as { default: Create | { default: Create } };
const create: Create = typeof moduleValue.default === 'function' ? moduleValue.default : moduleValue.default.default;

export type Listener = Subscriber;

/** A listener whose payloads are plain strings; connection errors are retried forever. */
export function createListener(connectionString: string): Listener {
  const listener = create({ connectionString }, { retryLimit: Infinity, parse: (s) => s, serialize: (v) => String(v) });
  listener.events.on('error', () => {});
  return listener;
}
