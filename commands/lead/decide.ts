// Lead commands: receive (idempotent on the platform lead id), complete a pending lead, record fetch outcomes.
import { ApiError } from '../shared/errors.ts';
import type { LeadEvent, LeadFetched, LeadPlatformEvent, LeadPlatformState, LeadReceived, LeadState } from './lead.ts';

/** The lead's claim on its platform lead id and its first event; nothing when the platform lead is known. */
export function decideReceiveLead(claim: LeadPlatformState, cmd: LeadReceived): { claim: LeadPlatformEvent[]; lead: LeadEvent[] } {
  if (claim.leadId !== null) return { claim: [], lead: [] };
  const { organizationId, platformLeadId, leadId } = cmd;
  return {
    claim: [{ type: 'LeadPlatformIdClaimed', data: { organizationId, platformLeadId, leadId } }],
    lead: [{ type: 'LeadReceived', data: cmd }],
  };
}

/** A pending lead gets its data and its person; a lead already complete stays as it is. */
export function decideLeadFetched(state: LeadState, cmd: LeadFetched): LeadEvent[] {
  if (!state.exists) throw new ApiError('not_found', { lead_id: cmd.leadId });
  // A lead whose fetch failed is still without its data: data that arrives later (an import) completes it.
  if (state.fetchStatus === 'ready') return [];
  return [{ type: 'LeadFetched', data: cmd }];
}

export interface FetchAttemptFailed {
  leadId: string;
  organizationId: string;
  /** Attempts made so far, this one included. */
  attempt: number;
  reason: string;
  /** Null: no retry left (or a permanent refusal); the lead's fetch failed for good. */
  nextAttemptAt: string | null;
  now: string;
}

/** Only the attempt the lead is waiting for counts: a stale claim of the same attempt changes nothing. */
export function decideFetchAttemptFailed(state: LeadState, cmd: FetchAttemptFailed): { events: LeadEvent[]; result: null } {
  if (!state.exists || state.fetchStatus !== 'pending' || state.attempts !== cmd.attempt - 1) return { events: [], result: null };
  const { leadId, organizationId, attempt, reason } = cmd;
  if (cmd.nextAttemptAt === null) {
    return { events: [{ type: 'LeadFetchFailed', data: { leadId, organizationId, attempts: attempt, reason, failedAt: cmd.now } }], result: null };
  }
  return { events: [{ type: 'LeadFetchRetryScheduled', data: { leadId, organizationId, attempt, reason, nextAttemptAt: cmd.nextAttemptAt } }], result: null };
}
