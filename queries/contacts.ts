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

/** Each filter as a condition on the contact's row (alias c). */
const FILTERS: Record<keyof ContactFilters, (n: number) => string> = {
  stage: (n) => `c.stage = $${n}`,
  tag: (n) => `c.tags @> ARRAY[$${n}::text]`,
  phoneHash: (n) => `c.phone_hash = $${n}`,
  emailHash: (n) => `c.email_hash = $${n}`,
  campaign: (n) => `c.campaign_ids @> ARRAY[$${n}::text]`,
  adset: (n) => `c.adset_ids @> ARRAY[$${n}::text]`,
  ad: (n) => `c.ad_ids @> ARRAY[$${n}::text]`,
};

/** Filters that contact_list_keys serves in list order (projections/contacts/0006), under its kind. */
const KEYED = ['tag', 'campaign', 'adset', 'ad'] as const;

/**
 * One page of live (not merged) contacts as JSON text. With a tag, campaign, ad set or ad filter the
 * page walks that value's keys, which carry the contact's text (projections/contacts/0008) and exist
 * only for live cards; contacts are joined only to test any other filter. Every variant runs one plan
 * whatever the values, so the statements stay prepared.
 */
export async function listContacts(db: Queryable, organizationId: string, page: Page, filters: ContactFilters): Promise<JsonPage> {
  const params: unknown[] = [organizationId];
  const driver = KEYED.find((name) => filters[name] !== undefined);
  const others = (Object.entries(filters) as [keyof ContactFilters, string | undefined][]).filter(([name, value]) => value !== undefined && name !== driver);
  let query = { from: 'contacts c', item: 'c.api_json', keyAlias: 'c.', where: ['c.organization_id = $1', 'c.merged_into IS NULL'] };
  if (driver) {
    params.push(driver, filters[driver]);
    const keys = ['k.organization_id = $1', 'k.kind = $2', 'k.value = $3'];
    query = others.length
      ? { from: 'contact_list_keys k JOIN contacts c ON c.organization_id = k.organization_id AND c.id = k.id', item: 'k.item', keyAlias: 'k.', where: [...query.where, ...keys] }
      : { from: 'contact_list_keys k', item: 'k.item', keyAlias: 'k.', where: keys };
  }
  for (const [name, value] of others) {
    params.push(value);
    query.where.push(FILTERS[name](params.length));
  }
  return jsonPage(db, { ...query, params, prepared: true }, page);
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

