// Contact aggregate: a person of the organisation, with stage, sales cycle, tags, notes and the leads it owns.
//
// Stream `contact-<contactId>`. Uniqueness of phone and e-mail within an organisation is held by the
// reservation streams of reservation.ts, appended in the same atomic appendMany as ContactCreated.
// Personal data: phone and e-mail are part of the contact (the API returns them), so they may appear
// here; lists filter on phoneHash / emailHash only.
import type { AdSource } from '../lead/lead.ts';

export const contactStream = (contactId: string) => `contact-${contactId}`;

export const STAGES = ['new', 'contacted', 'qualified', 'sold', 'rejected'] as const;
export type Stage = (typeof STAGES)[number];
/** A new lead for a person in one of these stages opens the next cycle. */
export const CLOSED_STAGES: readonly Stage[] = ['sold', 'rejected'];

export const NOTE_KINDS = ['note', 'call', 'meeting'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** A lead as its contact knows it: enough to move it and to queue its conversion. */
export interface ContactLead {
  leadId: string;
  platformLeadId: string;
  /** The service form source id of the lead. */
  sourceId: string;
  cycle: number;
  stage: Stage;
  /** ISO; the newest open lead (by this, then leadId) gets the sale value. */
  submittedAt: string;
  /** Open leads move with the contact's stage; they are the leads of the current cycle. */
  open: boolean;
}

export interface ContactCreated {
  contactId: string;
  organizationId: string;
  name: string;
  /** '' or E.164 */
  phone: string;
  /** '' or trimmed lower-case */
  email: string;
  phoneHash: string | null;
  emailHash: string | null;
  tags: string[];
  stage: 'new';
  cycle: 1;
  /** Form name for a contact made by a lead; 'api' for POST /contacts. */
  firstSource: string;
  firstAd: AdSource | null;
  ownerId: string | null;
  /** True when the phone is on the organisation's do-not-send list already. */
  smsOptout: boolean;
  createdAt: string;
}

export interface ContactUpdated {
  contactId: string;
  organizationId: string;
  changes: { name?: string; phone?: string; email?: string; phoneHash?: string | null; emailHash?: string | null; tags?: string[] };
  /** One line per change; names the field, never the old personal value. */
  history: string[];
  updatedAt: string;
}

export interface StageLeadOutcome {
  leadId: string;
  platformEventQueued: boolean;
  conversionEventId: string | null;
}

export interface ContactStageChanged {
  contactId: string;
  organizationId: string;
  from: Stage;
  to: Stage;
  cycle: number;
  value: number | null;
  currency: string | null;
  /** Every open lead of the cycle; each moved to `to` at changedAt. */
  leads: StageLeadOutcome[];
  /** The lead the value is counted on (null when no value was given). */
  valueLeadId: string | null;
  changedAt: string;
}

/** A new lead for a sold or rejected person: cycle + 1, stage new; earlier leads stop being open. */
export interface ContactCycleOpened {
  contactId: string;
  organizationId: string;
  from: Stage;
  cycle: number;
  leadId: string;
  openedAt: string;
}

/** A lead joins its contact (appended with LeadReceived/LeadFetched, atomically). It enters at `stage`. */
export interface ContactLeadLinked {
  contactId: string;
  organizationId: string;
  leadId: string;
  platformLeadId: string;
  sourceId: string;
  platformFormId: string;
  ad: AdSource | null;
  cycle: number;
  /** The contact's stage at that moment (new after a cycle opened); the lead's first stage. */
  stage: Stage;
  submittedAt: string;
  linkedAt: string;
}

export interface NoteAdded {
  noteId: string;
  contactId: string;
  organizationId: string;
  kind: NoteKind;
  text: string;
  time: string;
  addedAt: string;
}

export interface ContactTagsChanged {
  contactId: string;
  organizationId: string;
  added: string[];
  removed: string[];
  /** The tags after the change. */
  tags: string[];
  changedAt: string;
}

export interface ContactSmsOptoutChanged {
  contactId: string;
  organizationId: string;
  smsOptout: boolean;
  phoneHash: string | null;
  changedAt: string;
}

/** On the merged card: it leaves every list and answers 409 contact_merged from now on. */
export interface ContactMerged {
  contactId: string;
  organizationId: string;
  mergedInto: string;
  mergedAt: string;
}

/** On the surviving card, in the same append: leads, notes and tags of the merged card move here. */
export interface ContactMergeAbsorbed {
  contactId: string;
  organizationId: string;
  mergedFrom: string;
  /** Moved leads keep their stage; open ones join the survivor's current cycle, sold and rejected ones close. */
  leads: ContactLead[];
  ads: AdSource[];
  noteIds: string[];
  /** The survivor's tags after the merge (union, in order). */
  tags: string[];
  mergedAt: string;
}

export interface ContactOwnerAssigned {
  contactId: string;
  organizationId: string;
  ownerId: string;
  assignedAt: string;
}

export type ContactEvent =
  | { type: 'ContactCreated'; data: ContactCreated }
  | { type: 'ContactUpdated'; data: ContactUpdated }
  | { type: 'ContactStageChanged'; data: ContactStageChanged }
  | { type: 'ContactCycleOpened'; data: ContactCycleOpened }
  | { type: 'ContactLeadLinked'; data: ContactLeadLinked }
  | { type: 'NoteAdded'; data: NoteAdded }
  | { type: 'ContactTagsChanged'; data: ContactTagsChanged }
  | { type: 'ContactSmsOptoutChanged'; data: ContactSmsOptoutChanged }
  | { type: 'ContactMerged'; data: ContactMerged }
  | { type: 'ContactMergeAbsorbed'; data: ContactMergeAbsorbed }
  | { type: 'ContactOwnerAssigned'; data: ContactOwnerAssigned };

export const CONTACT_EVENT_TYPES = [
  'ContactCreated', 'ContactUpdated', 'ContactStageChanged', 'ContactCycleOpened', 'ContactLeadLinked', 'NoteAdded',
  'ContactTagsChanged', 'ContactSmsOptoutChanged', 'ContactMerged', 'ContactMergeAbsorbed', 'ContactOwnerAssigned',
] as const satisfies readonly ContactEvent['type'][];

export interface ContactState {
  exists: boolean;
  contactId: string;
  organizationId: string;
  mergedInto: string | null;
  name: string;
  phone: string;
  email: string;
  phoneHash: string | null;
  emailHash: string | null;
  tags: string[];
  stage: Stage;
  cycle: number;
  smsOptout: boolean;
  ownerId: string | null;
  firstAd: AdSource | null;
  leads: ContactLead[];
  noteIds: string[];
  ads: AdSource[];
}

export const initialContactState = (): ContactState => ({
  exists: false, contactId: '', organizationId: '', mergedInto: null, name: '', phone: '', email: '', phoneHash: null,
  emailHash: null, tags: [], stage: 'new', cycle: 1, smsOptout: false, ownerId: null, firstAd: null, leads: [], noteIds: [], ads: [],
});

const sameAd = (a: AdSource, b: AdSource) => a.ad_id === b.ad_id && a.adset_id === b.adset_id && a.campaign_id === b.campaign_id;

export function withAd(ads: AdSource[], ad: AdSource | null): AdSource[] {
  return ad && !ads.some((known) => sameAd(known, ad)) ? [...ads, ad] : ads;
}

function moveLeads(state: ContactState, d: ContactStageChanged): ContactState {
  const moved = new Set(d.leads.map((l) => l.leadId));
  return { ...state, stage: d.to, leads: state.leads.map((l) => (moved.has(l.leadId) ? { ...l, stage: d.to } : l)) };
}

export function evolveContact(state: ContactState, event: ContactEvent): ContactState {
  switch (event.type) {
    case 'ContactCreated': {
      const d = event.data;
      return {
        ...initialContactState(), exists: true, contactId: d.contactId, organizationId: d.organizationId, name: d.name,
        phone: d.phone, email: d.email, phoneHash: d.phoneHash, emailHash: d.emailHash, tags: d.tags, smsOptout: d.smsOptout,
        ownerId: d.ownerId, firstAd: d.firstAd, ads: withAd([], d.firstAd),
      };
    }
    case 'ContactUpdated': {
      const c = event.data.changes;
      return {
        ...state, name: c.name ?? state.name, phone: c.phone ?? state.phone, email: c.email ?? state.email,
        phoneHash: c.phoneHash !== undefined ? c.phoneHash : state.phoneHash,
        emailHash: c.emailHash !== undefined ? c.emailHash : state.emailHash, tags: c.tags ?? state.tags,
      };
    }
    case 'ContactStageChanged':
      return moveLeads(state, event.data);
    case 'ContactCycleOpened':
      return { ...state, stage: 'new', cycle: event.data.cycle, leads: state.leads.map((l) => ({ ...l, open: false })) };
    case 'ContactLeadLinked': {
      const d = event.data;
      if (state.leads.some((l) => l.leadId === d.leadId)) return state;
      const lead: ContactLead = { leadId: d.leadId, platformLeadId: d.platformLeadId, sourceId: d.sourceId, cycle: d.cycle, stage: d.stage, submittedAt: d.submittedAt, open: true };
      return { ...state, leads: [...state.leads, lead], ads: withAd(state.ads, d.ad) };
    }
    case 'NoteAdded':
      return { ...state, noteIds: [...state.noteIds, event.data.noteId] };
    case 'ContactTagsChanged':
      return { ...state, tags: event.data.tags };
    case 'ContactSmsOptoutChanged':
      return { ...state, smsOptout: event.data.smsOptout };
    case 'ContactMerged':
      return { ...state, mergedInto: event.data.mergedInto };
    case 'ContactMergeAbsorbed': {
      const d = event.data;
      const ads = d.ads.reduce(withAd, state.ads);
      return { ...state, leads: [...state.leads, ...d.leads], noteIds: [...state.noteIds, ...d.noteIds], tags: d.tags, ads };
    }
    case 'ContactOwnerAssigned':
      return { ...state, ownerId: event.data.ownerId };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const contactAggregate = { initialState: initialContactState, evolve: evolveContact };
