// Contact commands that involve its leads: stage moves, a lead joining (maybe opening a cycle), merging.
import { ApiError, validationError } from '../shared/errors.ts';
import type { AdSource } from '../lead/lead.ts';
import { CLOSED_STAGES, type ContactEvent, type ContactLead, type ContactState, type Stage, type StageLeadOutcome } from './contact.ts';
import { checkTagCount, liveContact } from './fields.ts';

type Decision<R = null> = { events: ContactEvent[]; result: R };

/** The leads a stage change moves, newest first (submission time, then id, so the order is total). */
export function openLeadsNewestFirst(state: ContactState): ContactLead[] {
  return state.leads
    .filter((l) => l.open)
    .sort((a, b) => (a.submittedAt === b.submittedAt ? (a.leadId < b.leadId ? 1 : -1) : a.submittedAt < b.submittedAt ? 1 : -1));
}

/** Stage checks that need no I/O: run before any conversion is queued. */
export function checkStageChange(state: ContactState, cmd: { contactId: string; organizationId: string; stage: Stage }): ContactLead[] {
  liveContact(state, cmd.contactId, cmd.organizationId);
  if (state.stage === cmd.stage) throw new ApiError('stage_conflict', { stage: state.stage }, `the contact is already ${state.stage}`);
  return openLeadsNewestFirst(state);
}

/** The lead a sale value is counted on: the newest whose event was queued, else the newest open lead. */
export function pickValueLead(openNewestFirst: ContactLead[], queued: ReadonlySet<string>): string | null {
  return openNewestFirst.find((l) => queued.has(l.leadId))?.leadId ?? openNewestFirst[0]?.leadId ?? null;
}

export interface ChangeStage {
  contactId: string;
  organizationId: string;
  stage: Stage;
  value: number | null;
  currency: string | null;
  /** Conversion event ids queued per lead id (looked up by the handler through the conversions machinery). */
  queued: ReadonlyMap<string, string>;
  now: string;
}

export interface StageCounts {
  platformEventsQueued: number;
  leadsWithoutSend: number;
}

export function decideChangeStage(state: ContactState, cmd: ChangeStage): Decision<StageCounts> {
  const open = checkStageChange(state, cmd);
  if ((cmd.value === null) !== (cmd.currency === null)) throw validationError('currency', 'value and currency go together');
  const leads: StageLeadOutcome[] = open.map((l) => ({
    leadId: l.leadId, platformEventQueued: cmd.queued.has(l.leadId), conversionEventId: cmd.queued.get(l.leadId) ?? null,
  }));
  const queuedIds = new Set(leads.filter((l) => l.platformEventQueued).map((l) => l.leadId));
  const valueLeadId = cmd.value === null ? null : pickValueLead(open, queuedIds);
  return {
    events: [{
      type: 'ContactStageChanged',
      data: {
        contactId: cmd.contactId, organizationId: cmd.organizationId, from: state.stage, to: cmd.stage, cycle: state.cycle,
        value: cmd.value, currency: cmd.currency, leads, valueLeadId, changedAt: cmd.now,
      },
    }],
    result: { platformEventsQueued: queuedIds.size, leadsWithoutSend: leads.length - queuedIds.size },
  };
}

export interface LinkLead {
  contactId: string;
  organizationId: string;
  leadId: string;
  platformLeadId: string;
  sourceId: string;
  platformFormId: string;
  ad: AdSource | null;
  submittedAt: string;
  now: string;
}

/** A lead joins its person; for a sold or rejected person it opens the next cycle first. */
export function decideLinkLead(state: ContactState, cmd: LinkLead): Decision<{ cycle: number }> {
  if (!state.exists) throw new ApiError('not_found', { contact_id: cmd.contactId });
  const known = state.leads.find((l) => l.leadId === cmd.leadId);
  if (known) return { events: [], result: { cycle: known.cycle } };
  const events: ContactEvent[] = [];
  let { cycle, stage } = state;
  if (CLOSED_STAGES.includes(state.stage)) {
    cycle += 1;
    stage = 'new';
    events.push({ type: 'ContactCycleOpened', data: { contactId: cmd.contactId, organizationId: cmd.organizationId, from: state.stage, cycle, leadId: cmd.leadId, openedAt: cmd.now } });
  }
  events.push({
    type: 'ContactLeadLinked',
    data: {
      contactId: cmd.contactId, organizationId: cmd.organizationId, leadId: cmd.leadId, platformLeadId: cmd.platformLeadId,
      sourceId: cmd.sourceId, platformFormId: cmd.platformFormId, ad: cmd.ad, cycle, stage, submittedAt: cmd.submittedAt, linkedAt: cmd.now,
    },
  });
  return { events, result: { cycle } };
}

/** Merge `from` into `into`: both cards change in one append. */
export function decideMerge(
  from: ContactState,
  into: ContactState,
  cmd: { fromId: string; intoId: string; organizationId: string; now: string },
): { fromEvents: ContactEvent[]; intoEvents: ContactEvent[] } {
  if (cmd.fromId === cmd.intoId) throw validationError('into', 'a contact cannot be merged into itself');
  liveContact(from, cmd.fromId, cmd.organizationId);
  liveContact(into, cmd.intoId, cmd.organizationId);
  // A lead the merged card closed (sold, rejected) stays closed: joining the survivor's cycle, a sale moved with the
  // survivor's next stage change and left the reports.
  const leads = from.leads.map((l) => (!l.open ? l : CLOSED_STAGES.includes(l.stage) ? { ...l, open: false } : { ...l, cycle: into.cycle }));
  const tags = [...into.tags, ...from.tags.filter((t) => !into.tags.includes(t))];
  // The survivor keeps the limit every other change keeps; the operator trims the tags first.
  checkTagCount(tags);
  const { organizationId, now } = cmd;
  const intoEvents: ContactEvent[] = [{
    type: 'ContactMergeAbsorbed',
    data: { contactId: cmd.intoId, organizationId, mergedFrom: cmd.fromId, leads, ads: from.ads, noteIds: from.noteIds, tags, mergedAt: now },
  }];
  if (into.ownerId === null && from.ownerId !== null) {
    intoEvents.push({ type: 'ContactOwnerAssigned', data: { contactId: cmd.intoId, organizationId, ownerId: from.ownerId, assignedAt: now } });
  }
  return {
    fromEvents: [{ type: 'ContactMerged', data: { contactId: cmd.fromId, organizationId, mergedInto: cmd.intoId, mergedAt: now } }],
    intoEvents,
  };
}
