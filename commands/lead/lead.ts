// Lead aggregate: one instant-form lead of the ad platform, as the service received and fetched it.
//
// Streams: `lead-<leadId>` (this aggregate) and `lead-platform-<orgId>-<platformLeadId>`, a reservation
// appended with 'no_stream' in the same appendMany as LeadReceived, so the same platform lead is one lead.
//
// Lifecycle. Import and jobs know the whole lead at once: LeadReceived with fetchStatus 'ready', contactId
// and cycle set. The leadgen webhook only names the lead: LeadReceived with fetchStatus 'pending',
// contactId/sourceId null and cycle 0; the fetch process then appends LeadFetched (the data, its contact,
// fetchStatus 'ready'), LeadFetchRetryScheduled on a transient failure, or LeadFetchFailed (reason kept). A
// failed lead still takes LeadFetched when an import or the lead_import job brings the whole lead later.
// Whenever a lead gets its contact, ContactLeadLinked is appended to the contact's stream in the same
// append; it carries everything lead.created needs (lead_id, contact_id, form_id = sourceId,
// platform_lead_id, cycle, ad), so it is the one event to emit lead.created from.
//
// Stage history of a lead (there is no per-lead stage event; the contact's stream holds it):
//   1. ContactLeadLinked {leadId, stage, linkedAt}: the lead enters at `stage` (the contact's stage in
//      its cycle: 'new' for a new person or after ContactCycleOpened), platform_event_queued false.
//   2. ContactStageChanged {to, changedAt, leads[]}: every lead listed moves to `to` at changedAt, with
//      its own platformEventQueued and conversionEventId. Only the open leads of the cycle are listed.
//   3. ContactCycleOpened: earlier leads stop being open; they keep their last stage for good.
//   4. ContactMergeAbsorbed {leads[]}: leads move to the surviving contact keeping their stage (an open
//      lead joins the survivor's current cycle); their history continues on the survivor's stream.
// The sale value of ContactStageChanged is counted once, on `valueLeadId`.

import type { AdRow } from '../shared/ad.ts';

export const leadStream = (leadId: string) => `lead-${leadId}`;
export const leadPlatformStream = (organizationId: string, platformLeadId: string) => `lead-platform-${organizationId}-${platformLeadId}`;

/** The ad a lead came from, and the platform (facebook, instagram, ...) it was shown on. */
export interface AdSource extends AdRow {
  platform: string;
}

export interface LeadAnswer {
  key: string;
  label: string;
  values: string[];
}

export type FetchStatus = 'pending' | 'ready' | 'failed';
export type LeadVia = 'webhook' | 'import' | 'job';

/** The lead as the platform describes it: who, which form, which ad, what answers. Received and fetched alike. */
export interface LeadContent {
  leadId: string;
  organizationId: string;
  platformLeadId: string;
  formName: string;
  platformFormId: string;
  platformPageId: string;
  ad: AdSource | null;
  answers: LeadAnswer[];
  /** ISO: the lead's created_time at the platform. */
  submittedAt: string;
}

export interface LeadReceived extends LeadContent {
  /** Null only while fetchStatus is 'pending'. */
  contactId: string | null;
  /** The service form source id; null only while pending. */
  sourceId: string | null;
  /** The contact's cycle the lead belongs to; 0 while pending. */
  cycle: number;
  receivedAt: string;
  fetchStatus: FetchStatus;
  via: LeadVia;
}

export interface LeadFetched extends LeadContent {
  contactId: string;
  sourceId: string;
  cycle: number;
  fetchedAt: string;
  fetchStatus: 'ready';
}

export interface LeadFetchRetryScheduled {
  leadId: string;
  organizationId: string;
  attempt: number;
  reason: string;
  nextAttemptAt: string;
}

export interface LeadFetchFailed {
  leadId: string;
  organizationId: string;
  attempts: number;
  reason: string;
  failedAt: string;
}

/** On the lead-platform reservation stream. */
export interface LeadPlatformIdClaimed {
  organizationId: string;
  platformLeadId: string;
  leadId: string;
}

export type LeadEvent =
  | { type: 'LeadReceived'; data: LeadReceived }
  | { type: 'LeadFetched'; data: LeadFetched }
  | { type: 'LeadFetchRetryScheduled'; data: LeadFetchRetryScheduled }
  | { type: 'LeadFetchFailed'; data: LeadFetchFailed };

export type LeadPlatformEvent = { type: 'LeadPlatformIdClaimed'; data: LeadPlatformIdClaimed };

export interface LeadState {
  exists: boolean;
  leadId: string;
  organizationId: string;
  platformLeadId: string;
  platformPageId: string;
  platformFormId: string;
  submittedAt: string;
  contactId: string | null;
  fetchStatus: FetchStatus;
  attempts: number;
}

export const initialLeadState = (): LeadState => ({
  exists: false, leadId: '', organizationId: '', platformLeadId: '', platformPageId: '', platformFormId: '', submittedAt: '',
  contactId: null, fetchStatus: 'pending', attempts: 0,
});

export function evolveLead(state: LeadState, event: LeadEvent): LeadState {
  switch (event.type) {
    case 'LeadReceived': {
      const d = event.data;
      return {
        exists: true, leadId: d.leadId, organizationId: d.organizationId, platformLeadId: d.platformLeadId, platformPageId: d.platformPageId,
        platformFormId: d.platformFormId, submittedAt: d.submittedAt, contactId: d.contactId, fetchStatus: d.fetchStatus, attempts: 0,
      };
    }
    case 'LeadFetched':
      return { ...state, contactId: event.data.contactId, fetchStatus: 'ready', attempts: state.attempts + 1 };
    case 'LeadFetchRetryScheduled':
      return { ...state, attempts: event.data.attempt };
    case 'LeadFetchFailed':
      return { ...state, fetchStatus: 'failed', attempts: event.data.attempts };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const leadAggregate = { initialState: initialLeadState, evolve: evolveLead };

export interface LeadPlatformState {
  leadId: string | null;
}

export const leadPlatformAggregate = {
  initialState: (): LeadPlatformState => ({ leadId: null }),
  evolve: (state: LeadPlatformState, event: LeadPlatformEvent): LeadPlatformState => {
    switch (event.type) {
      case 'LeadPlatformIdClaimed':
        return { leadId: state.leadId ?? event.data.leadId };
      default: {
        const _never: never = event.type;
        return state;
      }
    }
  },
};
