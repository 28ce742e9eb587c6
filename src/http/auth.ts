// Bearer-key authentication. Keys are cached briefly in memory; a revocation reaches every process
// through NOTIFY at once (keyEvents.ts), and the cache's short life bounds it even if a notification is lost.
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../commands/shared/errors.ts';
import { grants, type Scope } from '../../commands/shared/scopes.ts';
import { KEY_PATTERN, hashKey, shownPrefix } from '../../commands/apikey/handlers.ts';
import { findKeyByPrefix, getOrganization, type ApiKeyRow } from '../../queries/access.ts';
import type { Queryable } from '../db/pool.ts';
import type { Caller } from './route.ts';

const CACHE_MS = 4000;
const MAX_ENTRIES = 10_000;

/** A key with its organisation's name and settings (none change; revocation is what the cache must notice). */
export interface KeyRecord {
  row: ApiKeyRow;
  organizationName: string;
  organization: { timezone: string; phoneCountryCode: string };
}

export class KeyCache {
  private readonly entries = new Map<string, { row: KeyRecord | null; until: number }>();
  /** Lookups under way, shared so that a burst of requests on an expired entry costs one query. */
  private readonly loading = new Map<string, Promise<KeyRecord | null>>();
  /** Bumped by every forget, so a lookup that started before a revocation does not re-cache the old row. */
  private generation = 0;
  constructor(private readonly db: Queryable) {}

  async byPrefix(prefix: string, now: number): Promise<KeyRecord | null> {
    const hit = this.entries.get(prefix);
    if (hit && hit.until > now) return hit.row;
    const pending = this.loading.get(prefix);
    if (pending) return pending;
    const load = this.load(prefix, now).finally(() => this.loading.delete(prefix));
    this.loading.set(prefix, load);
    return load;
  }

  private async load(prefix: string, now: number): Promise<KeyRecord | null> {
    const generation = this.generation;
    const row = await findKeyByPrefix(this.db, prefix);
    const organization = row ? await getOrganization(this.db, row.organization_id) : null;
    if (!row || !organization) return null;
    const record = { row, organizationName: organization.name, organization: { timezone: organization.timezone, phoneCountryCode: organization.phone_country_code } };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Unknown prefixes are not cached: a key created a moment ago must work at once.
    if (generation === this.generation) this.entries.set(prefix, { row: record, until: now + CACHE_MS });
    return record;
  }

  forgetKey(keyId: string): void {
    this.generation++;
    for (const [prefix, entry] of this.entries) if (entry.row?.row.id === keyId) this.entries.delete(prefix);
    // A lookup under way may have read the row before the change: later callers must not share it.
    this.loading.clear();
  }

  /** After a lost listener connection: notifications may have been missed. */
  forgetAll(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}

export function makeCaller({ row, organizationName, organization }: KeyRecord): Caller {
  return {
    organizationId: row.organization_id,
    organization,
    keyId: row.id,
    scopes: row.scopes as Scope[],
    has: (scope) => grants(row.scopes, scope),
    description: { organizationName, name: row.name, prefix: shownPrefix(row.prefix), expiresAt: row.expires_at?.toISOString() ?? null },
  };
}

/** The caller of a request, or the spec's 401 error. */
export async function authenticate(header: string | undefined, cache: KeyCache, now: Date): Promise<{ caller: Caller; row: ApiKeyRow }> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const parsed = match ? KEY_PATTERN.exec(match[1]) : null;
  if (!match || !parsed) throw new ApiError('unauthorized');
  const record = await cache.byPrefix(parsed[1], now.getTime());
  if (!record) throw new ApiError('unauthorized');
  const { row } = record;
  const given = Buffer.from(hashKey(match[1]), 'hex');
  const stored = Buffer.from(row.hash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new ApiError('unauthorized');
  if (row.revoked_at) throw new ApiError('key_revoked');
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) throw new ApiError('key_expired');
  return { caller: makeCaller(record), row };
}

export function requireScope(caller: Caller, scope: Scope | null): void {
  if (scope && !caller.has(scope)) throw new ApiError('insufficient_scope', { required_scope: scope });
}
