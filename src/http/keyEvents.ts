// Keeps a process's key cache honest: a revoked key is dropped the moment the access projector commits
// the revocation (NOTIFY), and everything is dropped after a lost connection, when notices may have gone.
import { KEYS_CHANNEL } from '../../projections/access/projector.ts';
import { createListener } from '../db/listen.ts';
import type { Logger } from '../logger.ts';
import type { KeyCache } from './auth.ts';

export interface KeyEvents {
  /** Resolves once LISTEN is in place (or failed; the cache's short life still bounds staleness). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function watchKeyChanges(keys: KeyCache, connectionString: string, log: Logger): KeyEvents {
  const listener = createListener(connectionString);
  listener.notifications.on(KEYS_CHANNEL, (keyId: string) => keys.forgetKey(keyId));
  listener.events.on('reconnect', () => keys.forgetAll());
  listener.events.on('connected', () => keys.forgetAll());
  const ready = (async () => {
    await listener.connect();
    await listener.listenTo(KEYS_CHANNEL);
  })().catch((error: unknown) => log.error('key change listener failed', { error }));
  return {
    ready,
    async close() {
      await ready;
      await listener.close().catch(() => {});
    },
  };
}
