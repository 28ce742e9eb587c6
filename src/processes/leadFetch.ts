// Lead fetch: leads the leadgen webhook named are fetched from the platform with their page's token.
// Due rows of lead_fetches (fed by LeadReceived pending) are claimed for CLAIM_MS (their next attempt moves on), so
// several workers can run and a worker that dies leaves its claims to come due again; every outcome is an event (LeadFetched, LeadFetchRetryScheduled,
// LeadFetchFailed) and the row follows it. Retries use DELIVERY_RETRY_SCHEDULE; the reason is kept.
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand, loadAggregate } from '../eventstore/handle.ts';
import { open } from '../crypto/secretBox.ts';
import { fetchForm, fetchLead, withFormLabels, type PlatformLead } from '../platform/leads.ts';
import { platformConfigFrom, type PlatformConfig } from '../platform/graph.ts';
import { claimDueFetches, pageOfOrganization, type DueFetch } from '../../queries/pages.ts';
import { completeLead } from '../../commands/lead/intake.ts';
import { decideFetchAttemptFailed } from '../../commands/lead/decide.ts';
import { leadAggregate, leadStream } from '../../commands/lead/lead.ts';
import type { Services } from '../services.ts';
import { finishWithin, pauseAfter } from './sleepers.ts';
import type { ProcessManager } from './process.ts';

const POLL_MS = 200;
const BATCH = 5;
/** Longer than the platform calls of one fetch can take: the lead and the form's name, each 3 tries of 30 s at most. */
const CLAIM_MS = 5 * 60_000;

type Attempt = { kind: 'ok'; lead: PlatformLead } | { kind: 'transient' | 'permanent'; reason: string };

/**
 * The form's name and question labels, when the platform tells them; the lead object carries neither
 * (its answers name only the field keys). A form the platform will not show leaves the lead as it is. A form call
 * that fails for now is the attempt's transient failure while retries are left: stored without its form, the first
 * lead of a form named its source, its person's first_source and its own form_name by the form id, for good, and
 * showed labels made from the keys. At the last attempt the lead is stored as it is rather than failed.
 */
async function withForm(cfg: PlatformConfig, lead: PlatformLead, formId: string, token: string, lastAttempt: boolean): Promise<Attempt> {
  if (!formId) return { kind: 'ok', lead };
  const form = await fetchForm(cfg, formId, token);
  if (form.kind === 'transient' && !lastAttempt) return { kind: 'transient', reason: `form ${formId}: platform ${form.status}: ${form.message}`.slice(0, 500) };
  if (form.kind !== 'ok') return { kind: 'ok', lead };
  return { kind: 'ok', lead: { ...withFormLabels(lead, form.value.labels), formName: lead.formName ?? (form.value.name || null) } };
}

/** Whether a transient failure of this attempt is retried: DELIVERY_RETRY_SCHEDULE has a delay left after it. */
const retryLeft = (services: Services, row: DueFetch): boolean => row.attempts < services.config.deliveryRetrySchedule.length;

/** The platform call of one claimed row. */
async function attempt(services: Services, row: DueFetch, cfg: PlatformConfig): Promise<Attempt> {
  try {
    const page = await pageOfOrganization(services.pool, row.organization_id, row.page_id);
    if (!page) return { kind: 'permanent', reason: `page ${row.page_id} is not connected to the organisation` };
    const token = open(page.token_ciphertext, services.secrets.encryptionKey);
    const result = await fetchLead(cfg, row.platform_lead_id, token);
    if (result.kind !== 'ok') return { kind: result.kind, reason: `platform ${result.status}: ${result.message}`.slice(0, 500) };
    return await withForm(cfg, result.value, result.value.formId || row.platform_form_id, token, !retryLeft(services, row));
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
  const now = services.now();
  const nextAttemptAt = kind === 'transient' && retryLeft(services, row) ? new Date(now.getTime() + services.config.deliveryRetrySchedule[row.attempts]).toISOString() : null;
  await handleCommand(services.store, leadStream(row.lead_id), leadAggregate, (current) =>
    decideFetchAttemptFailed(current, { leadId: row.lead_id, organizationId: row.organization_id, attempt: row.attempts + 1, reason, nextAttemptAt, now: now.toISOString() }), metadata);
}

/**
 * One pass: claim due rows, call the platform, then record the outcomes through the store. No transaction is open
 * while the platform answers: the event store shows events only below the oldest running transaction, so a claim
 * held open across a platform that hangs (up to its time-outs) stalled every projector.
 */
export async function fetchDueLeads(services: Services, signal?: AbortSignal): Promise<number> {
  const cfg: PlatformConfig = { ...platformConfigFrom(services.config), signal };
  const now = services.now();
  const rows = await claimDueFetches(services.pool, now, BATCH, new Date(now.getTime() + CLAIM_MS));
  const attempts = await Promise.all(rows.map(async (row) => ({ row, outcome: await attempt(services, row, cfg) })));
  for (const { row, outcome } of attempts) await recordAttempt(services, row, outcome);
  return attempts.length;
}

export const leadFetchProcess: ProcessManager = {
  name: 'lead-fetch',
  start(services) {
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<void> = Promise.resolve();
    let failures = 0;
    // Aborted when a stop's grace is over: a fetch still waiting for the platform ends (transient: a retry is scheduled).
    const interrupt = new AbortController();
    const pass = async () => {
      try {
        // A full batch means more may be due: go again at once.
        while (!stopped && (await fetchDueLeads(services, interrupt.signal)) === BATCH);
        failures = 0;
      } catch (error) {
        failures++;
        services.log.error('lead fetch pass failed', { error });
      }
      if (!stopped) timer = setTimeout(() => { running = pass(); }, pauseAfter(POLL_MS, failures));
    };
    running = pass();
    return {
      async stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
        await finishWithin(running, services.config.shutdownGraceMs, interrupt);
      },
    };
  },
};
