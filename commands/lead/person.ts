// The person of a lead: matched by phone, then e-mail (through the reservation streams, so two leads of
// one new person arriving together make one contact), or created; then the lead joins it.
import { randomUUID } from 'node:crypto';
import type { AppendRequest, EventStore } from '../../src/eventstore/port.ts';
import type { PlatformLead } from '../../src/platform/leads.ts';
import { contactAggregate, contactStream, initialContactState, type ContactEvent, type ContactState } from '../contact/contact.ts';
import { decideCreateContact, decideUpdateContact } from '../contact/decide.ts';
import { decideLinkLead } from '../contact/decideStage.ts';
import { charCount, firstChars } from '../shared/text.ts';
import { emailKey, phoneIsListed, phoneKey, reserveKeys, smsBlockOfNewPhone, survivorOf, takeOwnerTurn } from '../contact/writes.ts';

// The contact limits of POST /contacts hold for the people leads make too.
const MAX_NAME = 200;
const MAX_EMAIL = 254;

export interface LeadFacts {
  organizationId: string;
  phoneCountryCode: string;
  leadId: string;
  sourceId: string;
  formName: string;
  lead: PlatformLead;
  now: string;
}

export interface PersonPlan {
  contactId: string;
  cycle: number;
  created: boolean;
  /** Contact stream first, then reservations and the owner turn, in one lock order. */
  requests: AppendRequest[];
}

/** The lead's phone and e-mail as contacts are matched by them; an empty value and no hash where there is none. */
export function leadKeys(lead: PlatformLead, countryCode: string) {
  const phone = lead.phone ? phoneKey(lead.phone, countryCode) : null;
  const email = lead.email ? emailKey(lead.email) : null;
  return {
    phone: phone ?? { value: '', hash: null },
    // A value without @, or longer than any address (254), is not an e-mail we could match or reach; it
    // stays in the answers only.
    email: email && email.value.includes('@') && charCount(email.value) <= MAX_EMAIL ? email : { value: '', hash: null },
  };
}

function link(f: LeadFacts, contactId: string, state: ContactState) {
  return decideLinkLead(state, {
    contactId, organizationId: f.organizationId, leadId: f.leadId, platformLeadId: f.lead.platformLeadId, sourceId: f.sourceId,
    platformFormId: f.lead.formId, ad: f.lead.ad, submittedAt: f.lead.createdTime, now: f.now,
  });
}

type Key = { value: string; hash: string | null };

/** A matched person without a phone (or e-mail) takes the lead's, when no one else holds it. */
async function fillMissing(store: EventStore, f: LeadFacts, contactId: string, state: ContactState, keys: { phone: Key; email: Key }) {
  const take: { phone?: Key; email?: Key } = {};
  const requests: AppendRequest[] = [];
  for (const kind of ['phone', 'email'] as const) {
    const key = keys[kind];
    if (state[kind] !== '' || key.hash === null) continue;
    const reserved = await reserveKeys(store, f.organizationId, contactId, [{ kind, hash: key.hash }], f.now, { ownMerged: true });
    if (reserved.heldBy !== null) continue;
    take[kind] = key;
    requests.push(...reserved.requests);
  }
  if (!take.phone && !take.email) return { events: [] as ContactEvent[], requests };
  const { events } = decideUpdateContact(state, { contactId, organizationId: f.organizationId, ...take, now: f.now });
  if (!take.phone) return { events, requests };
  const sms = await smsBlockOfNewPhone(store, f.organizationId, events.reduce(contactAggregate.evolve, state), f.now);
  return { events: [...events, ...sms.events], requests: [...requests, ...sms.requests] };
}

export async function planPerson(store: EventStore, f: LeadFacts): Promise<PersonPlan> {
  const { phone, email } = leadKeys(f.lead, f.phoneCountryCode);
  const newId = randomUUID();
  const keys = [{ kind: 'phone' as const, hash: phone.hash }, { kind: 'email' as const, hash: email.hash }];
  const reserved = await reserveKeys(store, f.organizationId, newId, keys, f.now);
  if (reserved.heldBy !== null) {
    const person = await survivorOf(store, reserved.heldBy);
    const filled = await fillMissing(store, f, person.contactId, person.state, { phone, email });
    const linked = link(f, person.contactId, filled.events.reduce(contactAggregate.evolve, person.state));
    const events = linked.events.length ? [...filled.events, ...linked.events] : [];
    const requests = events.length ? [{ stream: contactStream(person.contactId), events, expectedRevision: person.revision }, ...filled.requests] : [];
    return { contactId: person.contactId, cycle: linked.result.cycle, created: false, requests };
  }
  const owner = await takeOwnerTurn(store, f.organizationId, newId);
  const created = decideCreateContact(initialContactState(), {
    contactId: newId, organizationId: f.organizationId, name: firstChars(f.lead.fullName ?? '', MAX_NAME), phone: phone.value, email: email.value,
    phoneHash: phone.hash, emailHash: email.hash, tags: [], firstSource: f.formName, firstAd: f.lead.ad, ownerId: owner.ownerId,
    smsOptout: await phoneIsListed(store, f.organizationId, phone.hash), now: f.now,
  });
  const state = created.events.reduce(contactAggregate.evolve, initialContactState());
  const linked = link(f, newId, state);
  const events: ContactEvent[] = [...created.events, ...linked.events];
  return {
    contactId: newId, cycle: linked.result.cycle, created: true,
    requests: [{ stream: contactStream(newId), events, expectedRevision: 'no_stream' }, ...reserved.requests, ...owner.requests],
  };
}
