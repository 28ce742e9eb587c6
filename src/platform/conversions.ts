// Sends one batch of server events to a dataset (POST /{version}/{dataset_id}/events) and types the answer.
import { graphFetch, graphUrl, type PlatformConfig } from './graph.ts';

export const MAX_BATCH_EVENTS = 1000;

export type ActionSource = 'email' | 'website' | 'app' | 'phone_call' | 'chat' | 'physical_store' | 'system_generated' | 'business_messaging' | 'other';

/** User data as the platform takes it: em, ph and external_id already normalised and SHA-256 hashed. */
export interface ServerUserData {
  em?: string[];
  ph?: string[];
  external_id?: string[];
  fbp?: string;
  fbc?: string;
  client_ip_address?: string;
  client_user_agent?: string;
  lead_id?: string;
}

export interface ServerEvent {
  event_name: string;
  /** Unix seconds. */
  event_time: number;
  event_id: string;
  action_source: ActionSource;
  event_source_url?: string;
  user_data: ServerUserData;
  /** event_source 'crm' and lead_event_source for a CRM event about a platform lead (Conversion Leads). */
  custom_data?: { value?: number; currency?: string; content_ids?: string[]; event_source?: 'crm'; lead_event_source?: string };
}

export interface ConversionBatch {
  datasetId: string;
  accessToken: string;
  testEventCode?: string;
  events: ServerEvent[];
}

export type ConversionResult =
  | { kind: 'accepted'; eventsReceived: number; fbtraceId: string }
  | { kind: 'transient'; status: number; message: string; code?: number; userMessage?: string }
  | { kind: 'permanent'; status: number; message: string; code?: number; subcode?: number; userMessage?: string; eventIndex?: number };

// The platform names a bad event in a batch as data[3], "event 3" or "index 3" depending on the check.
const INDEX_PATTERNS = [/\bdata\[(\d+)\]/, /\bevents?\s+(?:at\s+)?(?:index\s+)?#?(\d+)\b/i, /\bindex\s+#?(\d+)\b/i];

/** The index of the event a refusal names, so the caller can split the batch and isolate it. */
export function eventIndexFrom(...texts: Array<string | undefined>): number | undefined {
  for (const text of texts) {
    if (text === undefined) continue;
    for (const pattern of INDEX_PATTERNS) {
      const match = pattern.exec(text);
      if (match) return Number(match[1]);
    }
  }
  return undefined;
}

/**
 * One request, no retries here (the delivery process schedules them). Never throws for a refusal or a
 * network failure; see classifyGraphError in graph.ts for what counts as transient.
 */
export async function sendConversionBatch(cfg: PlatformConfig, batch: ConversionBatch): Promise<ConversionResult> {
  if (batch.events.length === 0 || batch.events.length > MAX_BATCH_EVENTS) {
    return { kind: 'permanent', status: 0, message: `a batch holds 1 to ${MAX_BATCH_EVENTS} events, not ${batch.events.length}` };
  }
  const body = JSON.stringify({
    data: batch.events,
    access_token: batch.accessToken,
    ...(batch.testEventCode ? { test_event_code: batch.testEventCode } : {}),
  });
  const answer = await graphFetch(cfg, graphUrl(cfg, `${encodeURIComponent(batch.datasetId)}/events`), { method: 'POST', body, token: batch.accessToken });
  const userMessage = answer.kind !== 'ok' && answer.userMessage !== undefined ? { userMessage: answer.userMessage } : {};
  if (answer.kind === 'transient') return { kind: 'transient', status: answer.status, message: answer.message, ...(answer.code !== undefined ? { code: answer.code } : {}), ...userMessage };
  if (answer.kind === 'permanent') {
    const eventIndex = eventIndexFrom(answer.message, answer.userMessage);
    return {
      kind: 'permanent',
      status: answer.status,
      message: answer.message,
      ...(answer.code !== undefined ? { code: answer.code } : {}),
      ...(answer.subcode !== undefined ? { subcode: answer.subcode } : {}),
      ...userMessage,
      ...(eventIndex !== undefined && eventIndex < batch.events.length ? { eventIndex } : {}),
    };
  }
  const value = answer.value as { events_received?: unknown; fbtrace_id?: unknown };
  if (typeof value.events_received !== 'number') {
    return { kind: 'transient', status: 200, message: 'the platform answered without events_received' };
  }
  return { kind: 'accepted', eventsReceived: value.events_received, fbtraceId: typeof value.fbtrace_id === 'string' ? value.fbtrace_id : '' };
}
