// Connected platform pages, and the queue of leads waiting to be fetched.
import type { Client } from '../../src/db/pool.ts';
import type { Handlers } from './handlers.ts';
import type { LeadEvent } from '../../commands/lead/lead.ts';
import type { PageEvent } from '../../commands/page/page.ts';

type LeadData<T extends LeadEvent['type']> = Extract<LeadEvent, { type: T }>['data'];

const done = (tx: Client, organizationId: string, leadId: string) =>
  tx.query('DELETE FROM lead_fetches WHERE organization_id = $1 AND lead_id = $2', [organizationId, leadId]);

export const intakeHandlers: Handlers = {
  PageConnected: async (tx, e) => {
    const d = e.data as PageEvent['data'];
    await tx.query(
      `INSERT INTO platform_pages (page_id, organization_id, token_ciphertext, connected_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (page_id) DO UPDATE SET organization_id = EXCLUDED.organization_id, token_ciphertext = EXCLUDED.token_ciphertext, connected_at = EXCLUDED.connected_at`,
      [d.pageId, d.organizationId, d.tokenCiphertext, d.connectedAt],
    );
  },
  LeadReceived: async (tx, e) => {
    const d = e.data as LeadData<'LeadReceived'>;
    if (d.fetchStatus !== 'pending') return;
    await tx.query(
      `INSERT INTO lead_fetches (organization_id, lead_id, platform_lead_id, platform_form_id, page_id, attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT DO NOTHING`,
      [d.organizationId, d.leadId, d.platformLeadId, d.platformFormId, d.platformPageId, d.receivedAt],
    );
  },
  LeadFetchRetryScheduled: async (tx, e) => {
    const d = e.data as LeadData<'LeadFetchRetryScheduled'>;
    await tx.query('UPDATE lead_fetches SET attempts = $3, next_attempt_at = $4, last_error = $5 WHERE organization_id = $1 AND lead_id = $2', [d.organizationId, d.leadId, d.attempt, d.nextAttemptAt, d.reason]);
  },
  LeadFetched: async (tx, e) => {
    const d = e.data as LeadData<'LeadFetched'>;
    await done(tx, d.organizationId, d.leadId);
  },
  LeadFetchFailed: async (tx, e) => {
    const d = e.data as LeadData<'LeadFetchFailed'>;
    await done(tx, d.organizationId, d.leadId);
  },
};
