// POST /{version}/{dataset_id}/events: the Conversions API endpoint, validated the way the platform does.
import { fbtraceId, graphError, invalidParameter, invalidToken, isBadToken, unexpectedError, type GraphErrorAnswer } from './graph-errors.ts';
import type { RefusedEvents } from './datasets.ts';
import type { SandboxStore } from './store.ts';

const MAX_EVENTS = 1000;
const MAX_AGE_S = 7 * 86_400;
const ACTION_SOURCES = new Set(['email', 'website', 'app', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other']);
const SHA256 = /^[0-9a-f]{64}$/;

export type Answer = GraphErrorAnswer | { status: 200; body: { events_received: number; messages: string[]; fbtrace_id: string } };

function readEvents(raw: unknown): unknown[] | null {
  if (Array.isArray(raw)) return raw;
  if (typeof raw !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function hashedList(value: unknown): boolean {
  const list = Array.isArray(value) ? value : [value];
  return list.every((v) => typeof v === 'string' && SHA256.test(v));
}

/** The first problem of one event, as the platform words it, or null when the event is fine. */
function eventProblem(e: unknown, i: number, nowS: number): GraphErrorAnswer | null {
  const at = `data[${i}]`;
  if (!isObject(e)) return invalidParameter(`Invalid parameter: ${at} must be an object`);
  if (typeof e.event_name !== 'string' || e.event_name === '') return invalidParameter(`(#100) The parameter ${at}.event_name is required`);
  const time = typeof e.event_time === 'string' ? Number(e.event_time) : e.event_time;
  if (typeof time !== 'number' || !Number.isInteger(time)) return invalidParameter(`(#100) The parameter ${at}.event_time is required and must be a unix timestamp in seconds`);
  if (time < nowS - MAX_AGE_S) {
    return invalidParameter(`Invalid parameter: ${at}.event_time is too far in the past; events must be sent within 7 days of when they occurred`, {
      subcode: 2804003,
      userTitle: 'Event Timestamp Too Old',
      userMsg: `The timestamp for event ${i} is more than 7 days in the past.`,
    });
  }
  if (typeof e.action_source !== 'string' || !ACTION_SOURCES.has(e.action_source)) {
    return invalidParameter(`(#100) The parameter ${at}.action_source is required and must be one of ${[...ACTION_SOURCES].join(', ')}`);
  }
  const user = e.user_data;
  if (!isObject(user) || Object.keys(user).length === 0) return invalidParameter(`(#100) The parameter ${at}.user_data is required and must contain customer information`);
  for (const key of ['em', 'ph'] as const) {
    if (user[key] !== undefined && !hashedList(user[key])) return invalidParameter(`Invalid parameter: ${at}.user_data.${key} must be SHA-256 hashed (64 lower-case hex characters)`);
  }
  if (e.action_source === 'website' && (typeof user.client_user_agent !== 'string' || typeof e.event_source_url !== 'string')) {
    return invalidParameter(`Invalid parameter: ${at} has action_source website and needs user_data.client_user_agent and event_source_url`);
  }
  return null;
}

function batchProblem(events: unknown[] | null, nowS: number): GraphErrorAnswer | null {
  if (events === null) return invalidParameter('(#100) param data must be an array.');
  if (events.length === 0) return invalidParameter('(#100) param data must contain at least one event');
  if (events.length > MAX_EVENTS) return invalidParameter(`(#100) param data must contain at most ${MAX_EVENTS} events`);
  for (let i = 0; i < events.length; i++) {
    const problem = eventProblem(events[i], i, nowS);
    if (problem) return problem;
  }
  return null;
}

/** An event the dataset was told to refuse: the whole batch is refused, naming the event or not. */
function refusedProblem(events: unknown[], refused: RefusedEvents | undefined): GraphErrorAnswer | null {
  if (!refused) return null;
  const i = events.findIndex((e) => isObject(e) && typeof e.event_id === 'string' && refused.ids.has(e.event_id));
  if (i < 0) return null;
  return invalidParameter(refused.named ? `Invalid parameter: data[${i}] was refused by the dataset` : 'Invalid parameter');
}

function decide(store: SandboxStore, datasetId: string, token: string, events: unknown[] | null): Answer {
  const verdict = store.ledger.verdict(datasetId);
  switch (verdict.kind) {
    case 'flaky':
      return unexpectedError();
    case 'refuse':
      // Codes 1 and 2 are the platform's server-side failures; everything else it answers with 400.
      return verdict.code === 1 || verdict.code === 2
        ? graphError(500, verdict.code, verdict.message, { transient: true })
        : graphError(400, verdict.code, verdict.message, verdict.subcode !== undefined ? { subcode: verdict.subcode } : {});
    case 'check_token': {
      if (isBadToken(token) || (verdict.validTokens && !verdict.validTokens.includes(token))) return invalidToken();
      const problem = batchProblem(events, Math.floor(Date.now() / 1000)) ?? refusedProblem(events!, verdict.refused);
      if (problem) return problem;
      return { status: 200, body: { events_received: events?.length ?? 0, messages: [], fbtrace_id: fbtraceId() } };
    }
    default: {
      const never: never = verdict;
      throw new Error(`unknown verdict ${JSON.stringify(never)}`);
    }
  }
}

/** Answers one events request and records it against the dataset. */
export function handleEvents(store: SandboxStore, datasetId: string, params: Record<string, unknown>, query: URLSearchParams): Answer {
  const token = typeof params.access_token === 'string' ? params.access_token : (query.get('access_token') ?? '');
  const testCode = typeof params.test_event_code === 'string' ? params.test_event_code : query.get('test_event_code');
  const events = readEvents(params.data);
  const answer = decide(store, datasetId, token, events);
  const list = (events ?? []).filter(isObject);
  store.ledger.recordBatch(datasetId, { status: answer.status, accessToken: token, testEventCode: testCode, eventCount: list.length }, list, answer.status === 200);
  return answer;
}
