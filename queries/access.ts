// Organisations and API keys as authentication and the CLI read them.
import type { Queryable } from '../src/db/pool.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  timezone: string;
  currency: string;
  phone_country_code: string;
}

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/** The columns of ApiKeyRow. */
const API_KEY_COLUMNS = 'id, organization_id, name, prefix, hash, scopes, expires_at, revoked_at, created_at';

export async function getOrganization(db: Queryable, organizationId: string): Promise<OrganizationRow | null> {
  const { rows } = await db.query<OrganizationRow>(
    'SELECT id, name, timezone, currency, phone_country_code FROM organizations WHERE id = $1',
    [organizationId],
  );
  return rows[0] ?? null;
}

export async function findKeyByPrefix(db: Queryable, prefix: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE prefix = $1`,
    [prefix],
  );
  return rows[0] ?? null;
}

export async function listKeys(db: Queryable, organizationId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE organization_id = $1 ORDER BY created_at, id`,
    [organizationId],
  );
  return rows;
}
