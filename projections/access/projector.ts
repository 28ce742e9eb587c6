// Read model of organisations and API keys, used by authentication and the operator CLI.
import { migrationsIn } from '../../src/db/migrate.ts';
import { applyEach, type Projector } from '../../src/projections/projector.ts';
import type { OrganizationEvent } from '../../commands/organization/organization.ts';
import type { ApiKeyEvent } from '../../commands/apikey/apikey.ts';

type Data<E extends { type: string; data: unknown }, T extends E['type']> = Extract<E, { type: T }>['data'];

export const KEYS_CHANNEL = 'api_keys_changed';

export const accessProjector: Projector = {
  name: 'access',
  tables: ['organizations', 'api_keys'],
  migrations: migrationsIn(import.meta.dirname),
  handles: ['OrganizationCreated', 'ApiKeyCreated', 'ApiKeyRevoked'],
  apply: applyEach({
    OrganizationCreated: async (tx, e) => {
      const d = e.data as Data<OrganizationEvent, 'OrganizationCreated'>;
      await tx.query(
        `INSERT INTO organizations (id, name, timezone, currency, phone_country_code, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
        [d.organizationId, d.name, d.timezone, d.currency, d.phoneCountryCode, d.createdAt],
      );
    },
    ApiKeyCreated: async (tx, e) => {
      const d = e.data as Data<ApiKeyEvent, 'ApiKeyCreated'>;
      await tx.query(
        `INSERT INTO api_keys (id, organization_id, name, prefix, hash, scopes, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
        [d.keyId, d.organizationId, d.name, d.prefix, d.hash, d.scopes, d.expiresAt, d.createdAt],
      );
    },
    ApiKeyRevoked: async (tx, e) => {
      const d = e.data as Data<ApiKeyEvent, 'ApiKeyRevoked'>;
      await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND organization_id = $3', [d.keyId, d.revokedAt, d.organizationId]);
      // Every API process drops its cached copy of this key at commit.
      await tx.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, d.keyId]);
    },
  }),
};
