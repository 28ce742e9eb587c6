// API key command handlers: the key material is made here, shown once, and only its hash is kept.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { organizationExists } from '../organization/handlers.ts';
import { apiKeyAggregate, apiKeyStream } from './apikey.ts';
import { decideCreateApiKey, decideRevokeApiKey } from './decide.ts';

/** `csk_<lookup id>_<secret>`: the lookup id finds the stored hash (the events and the read model call it prefix). */
export const KEY_PATTERN = /^csk_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/;

/** The prefix shown to people (GET /me, the CLI): how the key begins, so a key can be told by its first characters. */
export const shownPrefix = (lookupId: string) => `csk_${lookupId}`;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface NewApiKey {
  id: string;
  key: string;
  prefix: string;
  scopes: string[];
  position: Position;
}

function newKeyMaterial(): { key: string; prefix: string } {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const prefix = Array.from(randomBytes(10), (b) => alphabet[b % alphabet.length]).join('');
  return { key: `csk_${prefix}_${randomBytes(32).toString('base64url')}`, prefix };
}

export async function createApiKey(
  store: EventStore,
  input: { organizationId: string; name: string; scopes: string[]; expiresAt: string | null },
  now: Date,
): Promise<NewApiKey> {
  const keyId = randomUUID();
  const { key, prefix } = newKeyMaterial();
  // A scope named twice is one scope: the key lists each once.
  const scopes = [...new Set(input.scopes)];
  const exists = await organizationExists(store, input.organizationId);
  const handled = await handleCommand(store, apiKeyStream(keyId), apiKeyAggregate, (state) =>
    decideCreateApiKey(state, {
      keyId, organizationId: input.organizationId, organizationExists: exists, name: input.name, prefix,
      hash: hashKey(key), scopes, expiresAt: input.expiresAt, now: now.toISOString(),
    }), { organizationId: input.organizationId, actor: 'operator' });
  return { id: keyId, key, prefix: shownPrefix(prefix), scopes, position: handled.append!.position };
}

export async function revokeApiKey(store: EventStore, keyId: string, now: Date): Promise<Position | null> {
  const handled = await handleCommand(store, apiKeyStream(keyId), apiKeyAggregate, (state) =>
    decideRevokeApiKey(state, { keyId, now: now.toISOString() }), { organizationId: null, actor: 'operator' });
  return handled.append?.position ?? null;
}
