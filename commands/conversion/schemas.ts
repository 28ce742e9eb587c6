// HTTP shapes of conversions: the POST /events body and answer, the Event and Delivery resources.
import { z } from 'zod';
import { chars } from '../shared/text.ts';
import { CALLER_ZONED_TIME, isoFromCaller } from '../shared/time.ts';
import { EXTERNAL_ID_MAX_CHARS, isHexDigest, MAX_CONVERSION_VALUE, STATUS_MAX_CHARS } from './validate.ts';

/** 9999-12-31T23:59:59Z in Unix seconds. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** A time of a resource: ISO 8601 in UTC, documented as date-time like every other resource's. */
const time = z.iso.datetime();

const EVENT_TIME_FORMS = 'Unix seconds (a whole number) or an ISO 8601 date-time';

/**
 * Why an event_time text is no date-time: Unix seconds in quotes and a time without its offset were told only
 * 'Invalid ISO datetime', which the one is not meant to be and the other is (local time, whose hour is unknown).
 */
function eventTimeTextProblem(input: unknown): string {
  const text = typeof input === 'string' ? input.trim() : '';
  if (/^\d+$/.test(text)) return 'Unix seconds go as a JSON number, not in quotes';
  if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(text)) return 'an ISO 8601 date-time with its offset (Z or +02:00): without one its hour is unknown';
  return EVENT_TIME_FORMS;
}

// Lengths in characters (code points), as the OpenAPI document's maxLength reads them (docs/http.md).
const opt = (max: number, what: string) => chars(0, max).optional().describe(what);

export const PostEventBody = z.object({
  source: z.string().min(1).max(64).describe('Id of a spreadsheet or shop source of the organisation'),
  external_id: chars(1, EXTERNAL_ID_MAX_CHARS).describe("The caller's record id"),
  status: chars(1, STATUS_MAX_CHARS).describe("The caller's status, mapped to a platform event by the source's active flows"),
  consent: z.boolean().refine((v) => v === true, 'must be true (legal basis confirmed)').describe('Must be true'),
  // Unix seconds up to the last second of the year 9999: a larger number is no time at all (not a 500).
  // The document's pattern is the forms isoFromCaller reads (+0200, +02, no seconds, a space), not the inner
  // schema's offset-with-colon one, which refused in the document what the service takes.
  // A value neither form takes (1.5, true) is named in words: the union's own message was 'Invalid input'.
  // A number out of range and a text that is no date-time are named for what the caller most likely sent.
  event_time: z.union([
    z.number().int().min(0, { error: 'at most 7 days old' }).max(MAX_UNIX_SECONDS, { error: 'not in the future (Unix seconds, not milliseconds)' }),
    z.preprocess(isoFromCaller, z.iso.datetime({ offset: true, error: (issue) => eventTimeTextProblem(issue.input) })).meta({ pattern: CALLER_ZONED_TIME.source }),
  ], { error: EVENT_TIME_FORMS }).optional()
    .describe('Unix seconds or ISO 8601; at most 7 days old, not in the future beyond 5 minutes of clock skew; default now'),
  // Empty or blank counts as absent, as for every other optional text field: the id is then derived.
  event_id: opt(128, 'Deduplication id; default (also when empty) derived from source, external_id and status'),
  email: opt(254, 'Trimmed, lower-cased and SHA-256 hashed before storage'),
  // A number has at most 32 characters; a SHA-256 hex digest of one (already hashed) is taken too.
  phone: z.string().max(64).refine((v) => v.length <= 32 || isHexDigest(v.trim()), 'at most 32 characters, or a SHA-256 hex digest').optional()
    .describe('E.164 (or a national number of the organisation\'s country); digits with country code, SHA-256 hashed; or its SHA-256 hex digest'),
  lead_id: opt(32, 'Platform lead id, when the conversion closes a platform lead'),
  user_id: opt(128, "Caller's customer id; trimmed, lower-cased, SHA-256 hashed and sent as external_id"),
  fbp: opt(500, 'Browser cookie value (_fbp)'),
  fbc: opt(500, 'Click cookie value (_fbc)'),
  event_source_url: opt(2000, 'Page URL of the conversion'),
  tracking_id: opt(128, 'Collector tracking id (shop platform)'),
  client_ip_address: opt(45, 'Customer IP address'),
  client_user_agent: opt(1000, 'Customer browser user agent'),
  // The range acceptConversion takes (checkValue), documented here: a body the document allows is not refused.
  value: z.number().min(0).max(MAX_CONVERSION_VALUE).optional().describe('Conversion value, 0 to 10^12; required for Purchase'),
  currency: z.string().optional().describe('ISO 4217; required with value'),
  content_ids: z.array(chars(1, 128)).max(100).optional().describe('Product ids'),
}).strict().meta({ id: 'PostEventBody' });

export const EventAccepted = z.object({
  event_id: z.string().describe('Service event id'),
  deliveries_created: z.number().int().describe('New deliveries queued, one per dataset of the active flows; a repeat of an accepted event queues those of flows added since'),
  duplicates: z.number().int().describe('Deliveries skipped: one for the same dataset, event name and platform event id exists'),
  sending_enabled: z.boolean().describe('False when this server only queues (PLATFORM_SENDING=off)'),
}).meta({ id: 'EventAccepted' });

export const Delivery = z.object({
  id: z.string(),
  event_id: z.string(),
  target_id: z.string(),
  dataset_id: z.string(),
  event_name: z.string(),
  platform_event_id: z.string(),
  mode: z.enum(['test', 'live']),
  status: z.enum(['pending', 'sending', 'retry', 'accepted', 'failed', 'cancelled']),
  attempts: z.number().int(),
  last_error: z.string(),
  accepted_at: time.nullable(),
  next_attempt_at: time.nullable(),
  created_at: time,
  updated_at: time,
}).meta({ id: 'Delivery' });

export const Event = z.object({
  id: z.string(),
  source_id: z.string(),
  external_id: z.string(),
  status: z.string(),
  platform_event_id: z.string(),
  event_time: time.nullable(),
  value: z.number().nullable(),
  currency: z.string(),
  deliveries: z.array(Delivery),
  created_at: time,
  updated_at: time,
}).meta({ id: 'Event' });

export const DELIVERY_STATUSES = ['pending', 'sending', 'retry', 'accepted', 'failed', 'cancelled'] as const;
