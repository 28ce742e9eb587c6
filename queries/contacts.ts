// Contacts as the API reads them: one by id, and the keyset lists with the specification's filters.
// Rows carry the Contact resource as ready JSON text (contacts.api_json, see projections/contacts/0004).
import type { Queryable } from '../src/db/pool.ts';
import type { Page } from '../src/http/pagination.ts';
import { jsonPage, type JsonPage } from './jsonPage.ts';

export interface ContactCardRow {
  id: string;
  merged_into: string | null;
  /** The Contact resource as JSON text, exactly what the API answers with. */
  json: string;
}

export async function getContact(db: Queryable, organizationId: string, contactId: string): Promise<ContactCardRow | null> {
  const { rows } = await db.query<ContactCardRow>({
    name: 'contact_get',
    text: 'SELECT id, merged_into, api_json AS json FROM contacts WHERE organization_id = $1 AND id = $2',
    values: [organizationId, contactId],
  });
  return rows[0] ?? null;
}

export interface ContactFilters {
  stage?: string;
  tag?: string;
  phoneHash?: string;
  emailHash?: string;
  campaign?: string;
  adset?: string;
  ad?: string;
}

/** Each filter is a condition on one column; array columns use their GIN index through @>. */
const FILTERS: Record<keyof ContactFilters, (n: number) => string> = {
  stage: (n) => `stage = $${n}`,
  tag: (n) => `tags @> ARRAY[$${n}::text]`,
  phoneHash: (n) => `phone_hash = $${n}`,
  emailHash: (n) => `email_hash = $${n}`,
  campaign: (n) => `campaign_ids @> ARRAY[$${n}::text]`,
  adset: (n) => `adset_ids @> ARRAY[$${n}::text]`,
  ad: (n) => `ad_ids @> ARRAY[$${n}::text]`,
};

const ARRAY_FILTERS = ['tag', 'campaign', 'adset', 'ad'] as const;

/** One page of live (not merged) contacts as JSON text. */
export async function listContacts(db: Queryable, organizationId: string, page: Page, filters: ContactFilters): Promise<JsonPage> {
  const params: unknown[] = [organizationId];
  const where = ['organization_id = $1', 'merged_into IS NULL'];
  for (const [name, value] of Object.entries(filters) as [keyof ContactFilters, string | undefined][]) {
    if (value === undefined) continue;
    params.push(value);
    where.push(FILTERS[name](params.length));
  }
  // Whether the GIN index or the list order serves an array filter best depends on the value: planned each time.
  const prepared = !ARRAY_FILTERS.some((name) => filters[name] !== undefined);
  return jsonPage(db, { table: 'contacts', item: 'api_json', where, params, prepared }, page);
}

/** Every card (merged ones too) with this phone: they follow its SMS block together. */
export async function contactsWithPhoneHash(db: Queryable, organizationId: string, phoneHash: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM contacts WHERE organization_id = $1 AND phone_hash = $2 ORDER BY id', [organizationId, phoneHash]);
  return rows.map((r) => r.id);
}

export async function isOnDoNotSendList(db: Queryable, organizationId: string, phoneHash: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM sms_do_not_send WHERE organization_id = $1 AND phone_hash = $2', [organizationId, phoneHash]);
  return rows.length > 0;
}

