// Stage change: the contact and every open lead of its cycle move in one append; each lead whose form
// source has an active flow for the target stage gets its conversion queued first, through the
// conversions machinery (one delivery per dataset), with the sale value on one lead only.
import type { EventMetadata, Position } from '../../src/eventstore/port.ts';
import type { Services } from '../../src/services.ts';
import { routingFor } from '../../queries/setup.ts';
import { acceptConversion } from '../conversion/handlers.ts';
import { isConversionEmail } from '../conversion/validate.ts';
import { ApiError } from '../shared/errors.ts';
import { contactStream, type ContactLead, type ContactState, type Stage } from './contact.ts';
import { checkStageChange, decideChangeStage } from './decideStage.ts';
import { inCardTurn, loadContact, organizationSettings, retrying } from './writes.ts';

export interface StageInput {
  organizationId: string;
  contactId: string;
  stage: Stage;
  value: number | null;
  currency: string | null;
}

export interface StageOutcome {
  contactId: string;
  platformEventsQueued: number;
  leadsWithoutSend: number;
  position: Position;
}

/**
 * Conversions that cannot be queued leave the lead without a send (the answer counts it) rather than
 * refusing the stage change: a paused source, an earlier event with other content, or a flow the
 * conversion does not satisfy (e.g. a Purchase without a value).
 */
const NOT_QUEUED = new Set(['source_paused', 'event_conflict', 'not_found', 'validation_error']);
/** The platform's lead ids are numeric; ids from elsewhere (a hand-made export) are not sent as lead_id. */
const PLATFORM_LEAD_ID = /^\d{1,30}$/;

/**
 * The card's e-mail goes with the conversion when the conversion rules take it: a lead may bring one they refuse
 * (an export's answer with a space inside), and the lead's lead_id and phone still match it at the platform.
 */
const emailToSend = (email: string): string | undefined => (isConversionEmail(email) ? email : undefined);

async function queueConversion(services: Services, state: ContactState, lead: ContactLead, input: StageInput, value: number | null, metadata: EventMetadata): Promise<string | null> {
  const routing = await routingFor(services.pool, input.organizationId, lead.sourceId, { kind: 'stage', value: input.stage });
  if (!routing.source || routing.source.paused || routing.routes.length === 0) return null;
  try {
    const accepted = await acceptConversion(services, {
      organizationId: input.organizationId, sourceId: lead.sourceId, trigger: { kind: 'stage', stage: input.stage },
      externalId: lead.leadId, leadId: PLATFORM_LEAD_ID.test(lead.platformLeadId) ? lead.platformLeadId : undefined, email: emailToSend(state.email), phone: state.phone || undefined,
      value: value ?? undefined, currency: value === null ? undefined : input.currency ?? undefined,
    }, metadata);
    return accepted.deliveriesCreated > 0 ? accepted.eventId : null;
  } catch (error) {
    if (error instanceof ApiError && NOT_QUEUED.has(error.code)) {
      services.log.warn('stage conversion not queued', { leadId: lead.leadId, sourceId: lead.sourceId, code: error.code });
      return null;
    }
    throw error;
  }
}

/**
 * Newest lead first: the first one whose conversion is queued carries the value; the others carry 0 (a
 * Purchase needs a value, and the sale must be counted once). Results survive a retry of the append.
 */
async function queueAll(services: Services, state: ContactState, open: ContactLead[], input: StageInput, queued: Map<string, string | null>, metadata: EventMetadata): Promise<void> {
  let valueTaken = [...queued.values()].some((id) => id !== null);
  for (const lead of open) {
    if (queued.has(lead.leadId)) continue;
    const value = input.value === null ? null : valueTaken ? 0 : input.value;
    const eventId = await queueConversion(services, state, lead, input, value, metadata);
    queued.set(lead.leadId, eventId);
    if (eventId !== null) valueTaken = true;
  }
}

export async function changeStage(services: Services, given: StageInput, metadata: EventMetadata): Promise<StageOutcome> {
  // A value without a currency is in the organisation's currency.
  const currency = given.value === null ? null : given.currency ?? (await organizationSettings(services.store, given.organizationId))?.currency ?? null;
  const input = { ...given, currency };
  const queued = new Map<string, string | null>();
  // The change is made by the append alone: a repeat of this request with its Idempotency-Key after a crash must run
  // again when only the conversions were queued (they are not queued twice), so they do not carry the claim.
  const { idempotencyClaim: _, ...queueing } = metadata;
  // The card's turn, across processes, from load to append: the conversions are queued before the append.
  return inCardTurn(services, [input.contactId], () => retrying(async () => {
    const { state, revision } = await loadContact(services.store, input.contactId);
    const open = checkStageChange(state, input);
    await queueAll(services, state, open, input, queued, queueing);
    const queuedIds = new Map([...queued].filter((entry): entry is [string, string] => entry[1] !== null));
    const decision = decideChangeStage(state, { ...input, queued: queuedIds, now: services.now().toISOString() });
    const appended = await services.store.append(contactStream(input.contactId), decision.events, revision, metadata);
    return { contactId: input.contactId, ...decision.result, position: appended.position };
  }));
}
