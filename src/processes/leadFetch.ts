// Lead fetch: leads the leadgen webhook named are fetched from the platform with their page's token.
// Due rows of lead_fetches (fed by LeadReceived pending) are claimed with FOR UPDATE SKIP LOCKED, so
// several workers can run; every outcome is an event (LeadFetched, LeadFetchRetryScheduled,
// LeadFetchFailed) and the row follows it. Retries use DELIVERY_RETRY_SCHEDULE; the reason is kept.
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand, loadAggregate } from '../eventstore/handle.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import { open } from '../crypto/secretBox.ts';
import { fetchLead, type PlatformLead } from '../platform/leads.ts';
import { graphGet, platformConfigFrom, type PlatformConfig } from '../platform/graph.ts';
import { claimDueFetches, pageOfOrganization, type DueFetch } from '../../queries/pages.ts';
import { completeLead } from '../../commands/lead/intake.ts';
import { decideFetchAttemptFailed } from '../../commands/lead/decide.ts';
import { leadAggregate, leadStream } from '../../commands/lead/lead.ts';
import type { Services } from '../services.ts';
import type { ProcessManager } from './process.ts';

const POLL_MS = 200;
const BATCH = 5;

/** The form's name, when the platform tells it; the lead object itself does not carry it. */
async function formName(cfg: PlatformConfig, formId: string, token: string): Promise<string | null> {
  if (!formId) return null;
  const answer = await graphGet(cfg, encodeURIComponent(formId), { access_token: token, fields: 'id,name' });
  return answer.kind === 'ok' ? String((answer.value as { name?: unknown }).name ?? '') || null : null;
}

type Attempt = { kind: 'ok'; lead: PlatformLead } | { kind: 'transient' | 'permanent'; reason: string };

/** The platform call, inside the claim: only the claiming transaction and HTTP, no other connection. */
async function attempt(services: Services, tx: Queryable, row: DueFetch, cfg: PlatformConfig): Promise<Attempt> {
  try {
    const page = await pageOfOrganization(tx, row.organization_id, row.page_id);
    if (!page) return { kind: 'permanent', reason: `page ${row.page_id} is not connected to the organisation` };
    const token = open(page.token_ciphertext, services.secrets.encryptionKey);
    const result = await fetchLead(cfg, row.platform_lead_id, token);
    if (result.kind !== 'ok') return { kind: result.kind, reason: `platform ${result.status}: ${result.message}`.slice(0, 500) };
    const name = result.value.formName ?? (await formName(cfg, result.value.formId || row.platform_form_id, token));
    return { kind: 'ok', lead: { ...result.value, formName: name } };
  } catch (error) {
    services.log.error('lead fetch failed unexpectedly', { error, leadId: row.lead_id });
    return { kind: 'transient', reason: 'internal error while fetching the lead' };
  }
}

/** The outcome as events; a row whose attempt was recorded already (a stale read model) changes nothing. */
export async function recordAttempt(services: Services, row: DueFetch, outcome: Attempt): Promise<void> {
  const metadata: EventMetadata = { organizationId: row.organization_id, actor: 'worker:lead-fetch' };
  const { state } = await loadAggregate(services.store, leadStream(row.lead_id), leadAggregate);
  if (state.fetchStatus !== 'pending' || state.attempts !== row.attempts) return;
  let reason = outcome.kind === 'ok' ? '' : outcome.reason;
  let kind = outcome.kind;
  if (outcome.kind === 'ok') {
    try {
      await completeLead(services, { organizationId: row.organization_id, leadId: row.lead_id, lead: outcome.lead }, metadata);
      return;
    } catch (error) {
      services.log.error('storing a fetched lead failed', { error, leadId: row.lead_id });
      [kind, reason] = ['transient', 'internal error while storing the lead'];
    }
  }
  const schedule = services.config.deliveryRetrySchedule;
  const made = row.attempts + 1;
  const now = services.now();
  const nextAttemptAt = kind === 'transient' && made <= schedule.length ? new Date(now.getTime() + schedule[made - 1]).toISOString() : null;
  await handleCommand(services.store, leadStream(row.lead_id), leadAggregate, (current) =>
    decideFetchAttemptFailed(current, { leadId: row.lead_id, organizationId: row.organization_id, attempt: made, reason, nextAttemptAt, now: now.toISOString() }), metadata);
}

/**
 * One pass: claim due rows (FOR UPDATE SKIP LOCKED, so another worker skips them) and call the
 * platform while holding them; then record the outcomes through the store.
 */
export async function fetchDueLeads(services: Services): Promise<number> {
  const cfg = platformConfigFrom(services.config);
  const attempts = await withTransaction(services.pool, async (tx) => {
    const rows = await claimDueFetches(tx, services.now(), BATCH);
    return Promise.all(rows.map(async (row) => ({ row, outcome: await attempt(services, tx, row, cfg) })));
  });
  for (const { row, outcome } of attempts) await recordAttempt(services, row, outcome);
  return attempts.length;
}

export const leadFetchProcess: ProcessManager = {
  name: 'lead-fetch',
  start(services) {
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<void> = Promise.resolve();
    const pass = async () => {
      try {
        // A full batch means more may be due: go again at once.
        while (!stopped && (await fetchDueLeads(services)) === BATCH);
      } catch (error) {
        services.log.error('lead fetch pass failed', { error });
      }
      if (!stopped) timer = setTimeout(() => { running = pass(); }, POLL_MS);
    };
    running = pass();
    return {
      async stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
        await running;
      },
    };
  },
};
