// Lead intake, shared by the leadgen webhook (pending, then fetched), the CLI import and the lead_import
// job. Idempotent on platform_lead_id: the same platform lead is always one lead of the service.
import { randomUUID } from 'node:crypto';
import type { AppendRequest, EventMetadata, Position } from '../../src/eventstore/port.ts';
import { loadAggregate } from '../../src/eventstore/handle.ts';
import type { Services } from '../../src/services.ts';
import type { PlatformLead } from '../../src/platform/leads.ts';
import { ensureFormSource, formSourceId, readSource } from '../source/handlers.ts';
import { ApiError } from '../shared/errors.ts';
import { inCardTurn, inOwnerTurn, organizationSettings, retrying, survivorOf } from '../contact/writes.ts';
import { decideLeadFetched, decideReceiveLead } from './decide.ts';
import { leadAggregate, leadPlatformAggregate, leadPlatformStream, leadStream, type LeadReceived, type LeadVia } from './lead.ts';
import { planPerson, type PersonPlan } from './person.ts';

export interface ReceivedLead {
  leadId: string;
  /** Null only for a lead still waiting for its data. */
  contactId: string | null;
  /** True when this call made the lead (false: the platform lead was known already). */
  created: boolean;
  /** True when this call gave a lead known without its data (pending, or its fetch failed) its data and person. */
  completed: boolean;
  position: Position;
}

/** What an import did with its leads, as the CLI and the lead_import job say it; completed ones only when there are some. */
export const importCounts = (c: { created: number; completed: number; known: number }): string =>
  `${c.created} new, ${c.completed ? `${c.completed} completed, ` : ''}${c.known} already known`;

/** The organisation's phone country code (fixed when it was created); not_found for an unknown organisation. */
export async function countryCode(services: Services, organizationId: string): Promise<string> {
  const settings = await organizationSettings(services.store, organizationId);
  if (!settings) throw new ApiError('not_found', { organization_id: organizationId });
  return settings.phoneCountryCode;
}

/** What the service knows of a lead it already has (its person followed through merges). */
async function known(services: Services, leadId: string): Promise<ReceivedLead> {
  const events = await services.store.readStream(leadStream(leadId));
  const state = events.reduce((s, e) => leadAggregate.evolve(s, e as never), leadAggregate.initialState());
  const contactId = state.contactId === null ? null : (await survivorOf(services.store, state.contactId)).contactId;
  return { leadId, contactId, created: false, completed: false, position: events[events.length - 1].position };
}

/**
 * The lead's form source, and its form name and page. A lead that does not say (an export item without
 * form_name or page_id, a form the platform will not show) takes what its form source has from earlier
 * leads; a form never named is named by its id.
 */
async function formOf(services: Services, organizationId: string, lead: PlatformLead): Promise<{ sourceId: string; formName: string; pageId: string | null }> {
  const given = lead.formName?.trim() ?? '';
  const source = await ensureFormSource(services.store, { organizationId, platformFormId: lead.formId, formName: given, platformPageId: lead.pageId }, services.now());
  return { sourceId: source.sourceId, formName: given || namedForm(source.name, lead.formId) || lead.formId, pageId: lead.pageId ?? source.platformPageId };
}

/** A form source's name as a form name: '' when it was named by its form id, for want of a name. */
const namedForm = (sourceName: string, platformFormId: string) => (sourceName === platformFormId ? '' : sourceName);

/**
 * A lead's append that links it to a card that exists waits for the card's turn, across processes
 * (inCardTurn: the CLI import, the lead_import job and the lead fetch may run in other processes than the API).
 * A stage change queues its leads' conversions before it appends; a lead landing in between (a new cycle for a
 * closed person) made it retry on leads it no longer moves, leaving a conversion queued for a lead whose
 * history never took the stage. Waiting, this append then meets the card's new revision and plans again.
 * A card the append creates has no stage change under way.
 */
function appendWithPerson(services: Services, person: PersonPlan, requests: AppendRequest[], metadata: EventMetadata): Promise<{ position: Position }> {
  const append = () => services.store.appendMany(requests, metadata);
  return person.created ? append() : inCardTurn(services, [person.contactId], append);
}

/** A whole lead (import, job): made with its person in one append, or found (and completed if it has no data yet).
 *  `phoneCountryCode`: the organisation's, when the caller has read it already (an import, once for all its leads). */
export async function receiveLead(
  services: Services,
  input: { organizationId: string; lead: PlatformLead; via: LeadVia; phoneCountryCode?: string },
  metadata: EventMetadata,
): Promise<ReceivedLead> {
  const { organizationId, lead, via } = input;
  const cc = input.phoneCountryCode ?? await countryCode(services, organizationId);
  const claimStream = leadPlatformStream(organizationId, lead.platformLeadId);
  return inOwnerTurn(services.store, organizationId, () => retrying(async () => {
    const claim = await loadAggregate(services.store, claimStream, leadPlatformAggregate);
    if (claim.state.leadId !== null) return completeLeadInTurn(services, { organizationId, leadId: claim.state.leadId, lead, phoneCountryCode: cc }, metadata);
    const now = services.now().toISOString();
    const leadId = randomUUID();
    const { sourceId, formName, pageId } = await formOf(services, organizationId, lead);
    const person = await planPerson(services.store, { organizationId, phoneCountryCode: cc, leadId, sourceId, formName, lead, now });
    const received: LeadReceived = {
      leadId, organizationId, platformLeadId: lead.platformLeadId, contactId: person.contactId, sourceId, formName, platformFormId: lead.formId,
      platformPageId: pageId ?? '', ad: lead.ad, answers: lead.answers, cycle: person.cycle, submittedAt: lead.createdTime,
      receivedAt: now, fetchStatus: 'ready', via,
    };
    const decided = decideReceiveLead(claim.state, received);
    const requests: AppendRequest[] = [
      { stream: claimStream, events: decided.claim, expectedRevision: 'no_stream' },
      { stream: leadStream(leadId), events: decided.lead, expectedRevision: 'no_stream' },
      ...person.requests,
    ];
    const appended = await appendWithPerson(services, person, requests, metadata);
    return { leadId, contactId: person.contactId, created: true, completed: false, position: appended.position };
  }));
}

/** A lead the webhook named: recorded at once as pending; the lead-fetch process brings its data. */
export async function recordPendingLead(
  services: Services,
  input: { organizationId: string; platformLeadId: string; platformFormId: string; platformPageId: string; submittedAt: string },
  metadata: EventMetadata,
): Promise<ReceivedLead> {
  const { organizationId, platformLeadId } = input;
  const claimStream = leadPlatformStream(organizationId, platformLeadId);
  return retrying(async () => {
    const claim = await loadAggregate(services.store, claimStream, leadPlatformAggregate);
    if (claim.state.leadId !== null) return known(services, claim.state.leadId);
    const leadId = randomUUID();
    const now = services.now().toISOString();
    const sourceId = formSourceId(organizationId, input.platformFormId);
    const decided = decideReceiveLead(claim.state, {
      leadId, organizationId, platformLeadId, contactId: null, sourceId, formName: await knownFormName(services, sourceId, input.platformFormId),
      platformFormId: input.platformFormId, platformPageId: input.platformPageId, ad: null, answers: [], cycle: 0,
      submittedAt: input.submittedAt, receivedAt: now, fetchStatus: 'pending', via: 'webhook',
    });
    const appended = await services.store.appendMany([
      { stream: claimStream, events: decided.claim, expectedRevision: 'no_stream' },
      { stream: leadStream(leadId), events: decided.lead, expectedRevision: 'no_stream' },
    ], metadata);
    return { leadId, contactId: null, created: true, completed: false, position: appended.position };
  });
}

/** The form's name as its source knows it from earlier leads; '' for a form not seen yet (or seen without a name). */
async function knownFormName(services: Services, sourceId: string, platformFormId: string): Promise<string> {
  const { state } = await readSource(services.store, sourceId);
  return state.exists ? namedForm(state.name, platformFormId) : '';
}

/**
 * A lead without its data gets them and its person in one append; a complete lead is returned as it is. Without
 * data: pending, or failed (the platform refused the fetch: a bad token, a lead it would not show then), which
 * the whole lead an import or the lead_import job brings later completes, or it would never have its person.
 */
export async function completeLead(
  services: Services,
  input: { organizationId: string; leadId: string; lead: PlatformLead; phoneCountryCode?: string },
  metadata: EventMetadata,
): Promise<ReceivedLead> {
  return inOwnerTurn(services.store, input.organizationId, () => completeLeadInTurn(services, input, metadata));
}

/**
 * completeLead within the organisation's owner turn (inOwnerTurn): with round robin on, a lead's new person takes the
 * next owner, and leads racing contact creates for that turn ran out of retries (the lead was never recorded).
 */
async function completeLeadInTurn(
  services: Services,
  input: { organizationId: string; leadId: string; lead: PlatformLead; phoneCountryCode?: string },
  metadata: EventMetadata,
): Promise<ReceivedLead> {
  const { organizationId, leadId } = input;
  const cc = input.phoneCountryCode ?? await countryCode(services, organizationId);
  return retrying(async () => {
    const { state, revision } = await loadAggregate(services.store, leadStream(leadId), leadAggregate);
    if (state.fetchStatus === 'ready') return known(services, leadId);
    const now = services.now().toISOString();
    // The webhook named the page and the form; the fetched lead object may not repeat them.
    const lead: PlatformLead = { ...input.lead, formId: input.lead.formId || state.platformFormId, pageId: input.lead.pageId ?? state.platformPageId };
    const { sourceId, formName, pageId } = await formOf(services, organizationId, lead);
    const person = await planPerson(services.store, { organizationId, phoneCountryCode: cc, leadId, sourceId, formName, lead, now });
    const events = decideLeadFetched(state, {
      leadId, organizationId, platformLeadId: state.platformLeadId, contactId: person.contactId, sourceId, formName,
      platformFormId: lead.formId, platformPageId: pageId ?? '', ad: lead.ad, answers: lead.answers, cycle: person.cycle,
      submittedAt: lead.createdTime || state.submittedAt, fetchedAt: now, fetchStatus: 'ready',
    });
    const appended = await appendWithPerson(services, person, [{ stream: leadStream(leadId), events, expectedRevision: revision }, ...person.requests], metadata);
    return { leadId, contactId: person.contactId, created: false, completed: true, position: appended.position };
  });
}
