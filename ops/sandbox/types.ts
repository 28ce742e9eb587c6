// Shapes the sandbox platform stores and answers with: Graph objects as the platform returns them, seeds, behaviours.

export type DatasetMode = 'accept' | 'refuse' | 'flaky';

export interface DatasetBehaviour {
  mode: DatasetMode;
  /** flaky: how many calls answer HTTP 500 (code 2) before the dataset accepts again. Default 1. */
  failures?: number;
  /** refuse: the Graph error code to answer with. Default 100. */
  refuseCode?: number;
  /** refuse: the Graph error subcode, e.g. 33 with code 100 (no such object: an unknown dataset). */
  refuseSubcode?: number;
  refuseMessage?: string;
  /** When set, only these access tokens are valid for the dataset (empty and 'bad' never are). */
  validTokens?: string[];
  /** Events (by event_id) whose presence makes the platform refuse the whole batch, as it does a bad event. */
  refuseEventIds?: string[];
  /** Whether that refusal names the event (`data[i]`, the default) or says only "Invalid parameter". */
  nameRefusedEvent?: boolean;
}

/** One POST /{dataset}/events request as the sandbox saw it. */
export interface ReceivedBatch {
  /** HTTP status the sandbox answered with. */
  status: number;
  accessToken: string;
  testEventCode: string | null;
  eventCount: number;
  /** The events themselves; empty once the dataset's recording cap is reached. */
  events: Record<string, unknown>[];
  receivedAt: string;
}

export interface DatasetReceipt {
  datasetId: string;
  /** Every events request, accepted or not. */
  requests: number;
  /** Events in accepted batches (the sum of events_received answered). */
  acceptedEvents: number;
  /** Distinct event_id values in accepted batches; counted always, past the recording cap too. */
  uniqueEventIds: number;
  /** Accepted events whose event_id had been accepted before (the platform would de-duplicate them). */
  duplicateEvents: number;
  batches: ReceivedBatch[];
  /** Events of accepted batches, in arrival order, up to the recording cap. */
  events: Record<string, unknown>[];
  /** True when the cap cut off recording of batches or events. */
  truncated: boolean;
}

export interface GraphFieldData {
  name: string;
  values: string[];
}

/** A lead as GET /{lead_id} returns it (all fields). */
export interface GraphLead {
  id: string;
  created_time: string;
  ad_id?: string;
  ad_name?: string;
  adset_id?: string;
  adset_name?: string;
  campaign_id?: string;
  campaign_name?: string;
  form_id: string;
  platform: string;
  field_data: GraphFieldData[];
  is_organic: boolean;
}

export interface LeadSeed {
  id: string;
  formId: string;
  /** ISO date-time or unix seconds. */
  createdTime: string | number;
  platform?: 'fb' | 'ig';
  ad?: { ad_id: string; ad_name: string; adset_id: string; adset_name: string; campaign_id: string; campaign_name: string };
  /** Answers by field key, e.g. { email: 'a@b.c', full_name: 'Anna Nowak' }. */
  answers: Record<string, string | string[]>;
}

export interface PageSeed {
  id: string;
  name?: string;
}

export interface FormSeed {
  id: string;
  pageId: string;
  name: string;
  status?: 'ACTIVE' | 'ARCHIVED' | 'DELETED' | 'DRAFT';
  /** The form's questions as the platform lists them (`questions` field): key and the label shown to the person. */
  questions?: FormQuestion[];
}

export interface FormQuestion {
  key: string;
  label: string;
  type?: string;
}

export interface AdAccountSeed {
  /** With or without the act_ prefix. */
  id: string;
  name?: string;
  currency?: string;
  timezoneName?: string;
}

/** One ad's numbers on one day. Lead counts: form leads count under lead, leadgen_grouped and
 *  onsite_conversion.lead_grouped; pixel leads under offsite_conversion.fb_pixel_lead, and both under lead. */
export interface InsightSeed {
  date: string;
  campaign_id: string;
  campaign_name: string;
  adset_id: string;
  adset_name: string;
  ad_id: string;
  ad_name: string;
  spend: number;
  impressions: number;
  clicks: number;
  reach: number;
  formLeads: number;
  pixelLeads?: number;
}

export interface GenerateInsightsOptions {
  ads: number;
  days: number;
  /** First day, YYYY-MM-DD. */
  since: string;
  /** Changes the generated numbers; the same seed gives the same rows. Default 1. */
  seed?: number;
  /** Ads per ad set and ad sets per campaign. Default 5 and 4. */
  adsPerAdset?: number;
  adsetsPerCampaign?: number;
}

export interface GeneratedInsightsSummary {
  rows: number;
  until: string;
  spend: number;
  impressions: number;
  clicks: number;
  leads: number;
}

export interface AdSeed {
  id: string;
  name?: string;
  creativeId: string;
}

export interface CreativeSeed {
  id: string;
  objectType?: 'VIDEO' | 'PHOTO' | 'SHARE' | 'STATUS';
  videoId?: string;
  imageHash?: string;
  /** Image hashes of a carousel's cards; makes the creative a carousel. */
  carouselImageHashes?: string[];
  thumbnailUrl?: string;
  title?: string;
  body?: string;
}

/** Makes the next `count` requests whose path contains `match` fail with a Graph error. */
export interface FailureInjection {
  match: string;
  count: number;
  status?: number;
  code?: number;
  subcode?: number;
  message?: string;
  /** The error's error_user_msg: the platform's own explanation, where its message is only "Invalid parameter". */
  userMessage?: string;
  transient?: boolean;
  /** Matching requests let through before the failures begin (a listing that fails halfway through its pages). */
  skip?: number;
}
