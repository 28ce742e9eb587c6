// Bulk data of the contacts bench: 100,000 contacts and 200,000 leads written straight into the read
// model with generate_series (the list endpoints read only these tables; the contacts table's triggers
// write the list keys, projections/contacts/0006), and a set of real contacts,
// made through the lead intake, that the stage benchmark moves.
import type { Pool } from '../src/db/pool.ts';
import type { Services } from '../src/services.ts';
import { receiveLead } from '../commands/lead/intake.ts';
import { leadFromGraph } from '../src/platform/leads.ts';

export const TAGS = 20;
export const CAMPAIGNS = 20;

export async function loadBulk(pool: Pool, organizationId: string, contacts: number, leads: number): Promise<void> {
  await pool.query(
    `INSERT INTO contacts (organization_id, id, name, phone, email, phone_hash, email_hash, stage, cycle, tags, sms_optout, first_source,
       first_ad, owner_id, campaign_ids, adset_ids, ad_ids, merged_into, last_activity_at, created_at, updated_at)
     SELECT $1, 'bulk-' || i, 'Person ' || i, '+4860' || lpad(i::text, 7, '0'), 'p' || i || '@example.com',
       encode(sha256(convert_to('4860' || lpad(i::text, 7, '0'), 'UTF8')), 'hex'), encode(sha256(convert_to('p' || i || '@example.com', 'UTF8')), 'hex'),
       (ARRAY['new', 'contacted', 'qualified', 'sold', 'rejected'])[1 + i % 5], 1,
       CASE WHEN i % 3 = 0 THEN ARRAY['tag-' || (i % $3)] ELSE ARRAY['tag-' || (i % $3), 'tag-' || ((i / 7) % $3)] END,
       false, 'Bulk form', NULL, NULL, ARRAY['camp-' || (i % $4)], ARRAY['adset-' || (i % 100)], ARRAY['ad-' || (i % 400)], NULL,
       now() - make_interval(secs => i * 97 % 31536000), now() - make_interval(secs => i * 300), now() - make_interval(secs => i * 300)
     FROM generate_series(1, $2::int) AS i`,
    [organizationId, contacts, TAGS, CAMPAIGNS],
  );
  await pool.query(
    `INSERT INTO leads (organization_id, id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, contact_id, stage, cycle,
       fetch_status, ad, campaign_id, adset_id, ad_id, answers, stages, via, submitted_at, created_at, updated_at)
     SELECT $1, 'bulk-lead-' || j, (900000000 + j)::text, 'bulk-source', 'Bulk form', 'bulk-form', 'bulk-page', 'bulk-' || (1 + (j - 1) % $3), 'new', 1,
       'ready', jsonb_build_object('platform', 'facebook', 'campaign_id', 'camp-' || (j % $4), 'campaign_name', 'Campaign', 'adset_id', 'adset-' || (j % 100),
         'adset_name', 'Adset', 'ad_id', 'ad-' || (j % 400), 'ad_name', 'Ad'),
       'camp-' || (j % $4), 'adset-' || (j % 100), 'ad-' || (j % 400),
       '[{"key": "email", "label": "Email", "values": ["x@example.com"]}]'::jsonb,
       '[{"stage": "new", "at": "2025-01-01T00:00:00.000Z", "platform_event_queued": false}]'::jsonb, 'import',
       now() - make_interval(secs => (j * 157) % 31536000), now() - make_interval(secs => j * 150), now() - make_interval(secs => j * 150)
     FROM generate_series(1, $2::int) AS j`,
    [organizationId, leads, contacts, CAMPAIGNS],
  );
  // The steady state autovacuum reaches after a load: statistics, and pages marked all-visible (index-only
  // scans of the list keys need no heap visit).
  await pool.query('VACUUM (ANALYZE) contacts, contact_list_keys, leads');
}

/** Contacts with one lead each, through the same intake as an import (events, projections). */
export async function realContacts(services: Services, organizationId: string, count: number, concurrency = 8): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const lead = leadFromGraph({
        id: String(800000000 + i), created_time: '2025-03-01T10:00:00+0000', form_id: 'bench-form', form_name: 'Bench form',
        field_data: [{ name: 'email', values: [`stage${i}@example.com`] }, { name: 'full_name', values: [`Stage ${i}`] }],
      });
      const received = await receiveLead(services, { organizationId, lead, via: 'import' }, { organizationId, actor: 'bench' });
      ids[i] = received.contactId!;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}
