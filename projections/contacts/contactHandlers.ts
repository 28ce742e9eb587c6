// The contacts table, notes and the do-not-send list, from contact events.
import type { Client } from '../../src/db/pool.ts';
import type { Handlers } from './handlers.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { ContactEvent } from '../../commands/contact/contact.ts';
import type { AdSource } from '../../commands/lead/lead.ts';
import type { SmsListEvent } from '../../commands/contact/smsList.ts';

type Data<T extends ContactEvent['type']> = Extract<ContactEvent, { type: T }>['data'];
const data = <T extends ContactEvent['type']>(e: RecordedEvent) => e.data as Data<T>;

/** Columns a ContactUpdated may change, by the name its `changes` uses. */
const UPDATABLE: Record<string, string> = { name: 'name', phone: 'phone', email: 'email', phoneHash: 'phone_hash', emailHash: 'email_hash', tags: 'tags' };

const idsOf = (ads: AdSource[], key: 'campaign_id' | 'adset_id' | 'ad_id') => ads.map((a) => a[key]).filter((v) => v !== '');

async function addAds(tx: Client, organizationId: string, contactId: string, ads: AdSource[], at: string | null, changedAt: string): Promise<void> {
  await tx.query(
    `UPDATE contacts SET
       campaign_ids = ARRAY(SELECT DISTINCT x FROM unnest(campaign_ids || $3::text[]) x),
       adset_ids = ARRAY(SELECT DISTINCT x FROM unnest(adset_ids || $4::text[]) x),
       ad_ids = ARRAY(SELECT DISTINCT x FROM unnest(ad_ids || $5::text[]) x),
       last_activity_at = GREATEST(last_activity_at, $6::timestamptz), updated_at = $7
     WHERE organization_id = $1 AND id = $2`,
    [organizationId, contactId, idsOf(ads, 'campaign_id'), idsOf(ads, 'adset_id'), idsOf(ads, 'ad_id'), at, changedAt],
  );
}

async function set(tx: Client, organizationId: string, contactId: string, assignments: string, values: unknown[], updatedAt: string): Promise<void> {
  await tx.query(`UPDATE contacts SET ${assignments}, updated_at = $3 WHERE organization_id = $1 AND id = $2`, [organizationId, contactId, updatedAt, ...values]);
}

export const contactHandlers: Handlers = {
  ContactCreated: async (tx, e) => {
    const d = data<'ContactCreated'>(e);
    // The first ad's ids go in with the row: one statement (and one run of the list-key trigger) instead of two.
    const ads = d.firstAd ? [d.firstAd] : [];
    await tx.query(
      `INSERT INTO contacts (organization_id, id, name, phone, email, phone_hash, email_hash, stage, cycle, tags, sms_optout,
         first_source, first_ad, owner_id, created_at, updated_at, campaign_ids, adset_ids, ad_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16, $17, $18) ON CONFLICT DO NOTHING`,
      [d.organizationId, d.contactId, d.name, d.phone, d.email, d.phoneHash, d.emailHash, d.stage, d.cycle, d.tags, d.smsOptout,
        d.firstSource, d.firstAd === null ? null : JSON.stringify(d.firstAd), d.ownerId, d.createdAt,
        idsOf(ads, 'campaign_id'), idsOf(ads, 'adset_id'), idsOf(ads, 'ad_id')],
    );
  },
  ContactUpdated: async (tx, e) => {
    const d = data<'ContactUpdated'>(e);
    const entries = Object.entries(d.changes).filter(([key, value]) => UPDATABLE[key] && value !== undefined);
    if (entries.length === 0) return;
    // Column names come from the fixed map above; values are parameters.
    const assignments = entries.map(([key], i) => `${UPDATABLE[key]} = $${i + 4}`).join(', ');
    await set(tx, d.organizationId, d.contactId, assignments, entries.map(([, value]) => value), d.updatedAt);
  },
  ContactStageChanged: async (tx, e) => {
    const d = data<'ContactStageChanged'>(e);
    await set(tx, d.organizationId, d.contactId, 'stage = $4, last_activity_at = GREATEST(last_activity_at, $3::timestamptz)', [d.to], d.changedAt);
  },
  ContactCycleOpened: async (tx, e) => {
    const d = data<'ContactCycleOpened'>(e);
    await set(tx, d.organizationId, d.contactId, `stage = 'new', cycle = $4`, [d.cycle], d.openedAt);
  },
  ContactLeadLinked: async (tx, e) => {
    const d = data<'ContactLeadLinked'>(e);
    await addAds(tx, d.organizationId, d.contactId, d.ad ? [d.ad] : [], d.submittedAt, d.linkedAt);
  },
  NoteAdded: async (tx, e) => {
    const d = data<'NoteAdded'>(e);
    await tx.query(
      `INSERT INTO contact_notes (organization_id, id, contact_id, kind, text, time, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [d.organizationId, d.noteId, d.contactId, d.kind, d.text, d.time, d.addedAt],
    );
    await set(tx, d.organizationId, d.contactId, 'last_activity_at = GREATEST(last_activity_at, $4::timestamptz)', [d.time], d.addedAt);
  },
  ContactTagsChanged: async (tx, e) => {
    const d = data<'ContactTagsChanged'>(e);
    await set(tx, d.organizationId, d.contactId, 'tags = $4', [d.tags], d.changedAt);
  },
  ContactSmsOptoutChanged: async (tx, e) => {
    const d = data<'ContactSmsOptoutChanged'>(e);
    await set(tx, d.organizationId, d.contactId, 'sms_optout = $4', [d.smsOptout], d.changedAt);
  },
  ContactMerged: async (tx, e) => {
    const d = data<'ContactMerged'>(e);
    await set(tx, d.organizationId, d.contactId, 'merged_into = $4', [d.mergedInto], d.mergedAt);
  },
  ContactMergeAbsorbed: async (tx, e) => {
    const d = data<'ContactMergeAbsorbed'>(e);
    await tx.query('UPDATE contact_notes SET contact_id = $3 WHERE organization_id = $1 AND contact_id = $2', [d.organizationId, d.mergedFrom, d.contactId]);
    await set(tx, d.organizationId, d.contactId,
      `tags = $4, last_activity_at = GREATEST(last_activity_at,
         (SELECT last_activity_at FROM contacts WHERE organization_id = $1 AND id = $5))`, [d.tags, d.mergedFrom], d.mergedAt);
    await addAds(tx, d.organizationId, d.contactId, d.ads, null, d.mergedAt);
  },
  ContactOwnerAssigned: async (tx, e) => {
    const d = data<'ContactOwnerAssigned'>(e);
    await set(tx, d.organizationId, d.contactId, 'owner_id = $4', [d.ownerId], d.assignedAt);
  },
  PhoneSmsOptoutSet: async (tx, e) => {
    const d = e.data as SmsListEvent['data'];
    if (d.smsOptout) {
      await tx.query('INSERT INTO sms_do_not_send (organization_id, phone_hash, since) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [d.organizationId, d.phoneHash, d.changedAt]);
    } else {
      await tx.query('DELETE FROM sms_do_not_send WHERE organization_id = $1 AND phone_hash = $2', [d.organizationId, d.phoneHash]);
    }
  },
};
