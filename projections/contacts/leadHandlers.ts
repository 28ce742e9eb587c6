// The leads table: what was received and fetched, its person and cycle, and its stage history.
// A lead's stages come from its contact's stream (see commands/lead/lead.ts for the rules).
import type { Client } from '../../src/db/pool.ts';
import type { Handlers } from './handlers.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { ContactEvent } from '../../commands/contact/contact.ts';
import type { AdSource, LeadEvent } from '../../commands/lead/lead.ts';

type ContactData<T extends ContactEvent['type']> = Extract<ContactEvent, { type: T }>['data'];
type LeadData<T extends LeadEvent['type']> = Extract<LeadEvent, { type: T }>['data'];

const adColumns = (ad: AdSource | null) => [ad === null ? null : JSON.stringify(ad), ad?.campaign_id || null, ad?.adset_id || null, ad?.ad_id || null];

async function received(tx: Client, e: RecordedEvent): Promise<void> {
  const d = e.data as LeadData<'LeadReceived'>;
  await tx.query(
    `INSERT INTO leads (organization_id, id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, contact_id,
       stage, cycle, fetch_status, ad, campaign_id, adset_id, ad_id, answers, stages, via, submitted_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'new', $9, $10, $11, $12, $13, $14, $15, '[]', $16, $17, $18, $18) ON CONFLICT DO NOTHING`,
    [d.organizationId, d.leadId, d.platformLeadId, d.sourceId, d.formName, d.platformFormId, d.platformPageId, d.contactId, d.cycle,
      d.fetchStatus, ...adColumns(d.ad), JSON.stringify(d.answers), d.via, d.submittedAt, d.receivedAt],
  );
}

async function fetched(tx: Client, e: RecordedEvent): Promise<void> {
  const d = e.data as LeadData<'LeadFetched'>;
  await tx.query(
    `UPDATE leads SET source_id = $3, form_name = $4, platform_form_id = $5, platform_page_id = $6, contact_id = $7, cycle = $8,
       fetch_status = 'ready', fetch_error = NULL, ad = $9, campaign_id = $10, adset_id = $11, ad_id = $12, answers = $13,
       submitted_at = $14, updated_at = $15
     WHERE organization_id = $1 AND id = $2`,
    [d.organizationId, d.leadId, d.sourceId, d.formName, d.platformFormId, d.platformPageId, d.contactId, d.cycle, ...adColumns(d.ad),
      JSON.stringify(d.answers), d.submittedAt, d.fetchedAt],
  );
}

/** Append one history entry per lead: [{leadId, queued}] all moving to `stage` at `at`. */
async function moveLeads(tx: Client, organizationId: string, moves: { leadId: string; queued: boolean }[], stage: string, at: string, contactId: string, cycle: number | null): Promise<void> {
  if (moves.length === 0) return;
  await tx.query(
    `UPDATE leads l SET stage = $3::text, contact_id = $5, cycle = COALESCE($6::int, l.cycle), updated_at = $4::text::timestamptz,
       stages = l.stages || jsonb_build_array(jsonb_build_object('stage', $3::text, 'at', $4::text, 'platform_event_queued', m.queued))
     FROM unnest($2::text[], $7::boolean[]) AS m(id, queued)
     WHERE l.organization_id = $1 AND l.id = m.id`,
    [organizationId, moves.map((m) => m.leadId), stage, at, contactId, cycle, moves.map((m) => m.queued)],
  );
}

export const leadHandlers: Handlers = {
  LeadReceived: received,
  LeadFetched: fetched,
  LeadFetchFailed: async (tx, e) => {
    const d = e.data as LeadData<'LeadFetchFailed'>;
    await tx.query(`UPDATE leads SET fetch_status = 'failed', fetch_error = $3, updated_at = $4 WHERE organization_id = $1 AND id = $2`, [d.organizationId, d.leadId, d.reason, d.failedAt]);
  },
  ContactLeadLinked: async (tx, e) => {
    const d = e.data as ContactData<'ContactLeadLinked'>;
    await moveLeads(tx, d.organizationId, [{ leadId: d.leadId, queued: false }], d.stage, d.linkedAt, d.contactId, d.cycle);
  },
  ContactStageChanged: async (tx, e) => {
    const d = e.data as ContactData<'ContactStageChanged'>;
    await moveLeads(tx, d.organizationId, d.leads.map((l) => ({ leadId: l.leadId, queued: l.platformEventQueued })), d.to, d.changedAt, d.contactId, null);
  },
  ContactMergeAbsorbed: async (tx, e) => {
    const d = e.data as ContactData<'ContactMergeAbsorbed'>;
    // Moved leads keep their stage and history; only their person (and an open lead's cycle) change.
    await tx.query(
      `UPDATE leads l SET contact_id = $3, cycle = m.cycle, updated_at = $4
       FROM unnest($2::text[], $5::int[]) AS m(id, cycle)
       WHERE l.organization_id = $1 AND l.id = m.id`,
      [d.organizationId, d.leads.map((l) => l.leadId), d.contactId, d.mergedAt, d.leads.map((l) => l.cycle)],
    );
  },
};
