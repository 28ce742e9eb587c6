// The rules every conversion obeys, whoever sends it (POST /events, lead stage changes, sheet syncs).
// Pure: the clock comes in as `now`; hashing happens in the handler right after.
import { isIP } from 'node:net';
import { validationError } from '../shared/errors.ts';
import { charCount, charsRule } from '../shared/text.ts';
import { isCurrencyCode } from '../shared/currency.ts';
import type { Trigger } from './conversion.ts';

/** The specification's limits of the caller's record id and status (POST /events, and GET /events' filters). */
export const EXTERNAL_ID_MAX_CHARS = 128;
export const STATUS_MAX_CHARS = 80;

export interface ConversionInput {
  organizationId: string;
  sourceId: string;
  trigger: Trigger;
  externalId: string;
  /** ISO 8601; absent means now. */
  eventTime?: string;
  eventId?: string;
  email?: string;
  phone?: string;
  leadId?: string;
  userId?: string;
  fbp?: string;
  fbc?: string;
  eventSourceUrl?: string;
  trackingId?: string;
  clientIpAddress?: string;
  clientUserAgent?: string;
  value?: number;
  currency?: string;
  contentIds?: string[];
}

export const MAX_AGE_MS = 7 * 86_400_000;
/** Senders' clocks drift; an event this far in the future is still taken as "now". */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** The largest conversion value: it goes to the platform only (the reports count stage-change sale values). */
export const MAX_CONVERSION_VALUE = 1e12;

/** The input with strings trimmed, empty optional fields dropped, and each rule checked. */
export type CheckedInput = Omit<ConversionInput, 'eventTime'> & { eventTime: string | null };

function text(field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length > max && charCount(trimmed) > max) throw validationError(field, `at most ${max} characters`);
  return trimmed === '' ? undefined : trimmed;
}

/** A SHA-256 hex digest in either case: a caller's value already hashed, which the platform takes as it is. */
export const isHexDigest = (value: string): boolean => /^[0-9a-f]{64}$/i.test(value);

/** A phone number (at most 32 characters), or its SHA-256 hex digest, lower-cased like an e-mail's. */
function phoneText(value: string | undefined): string | undefined {
  if (value !== undefined && isHexDigest(value.trim())) return value.trim().toLowerCase();
  return text('phone', value, 32);
}

function checkEventTime(raw: string | undefined, now: Date): string | null {
  if (raw === undefined) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) throw validationError('event_time', 'Unix seconds or an ISO 8601 time');
  // Whole seconds, as event_time is sent to the platform and as the platform counts its 7 days: an event_time of
  // exactly 7 days ago in Unix seconds is not refused because the request reached us some milliseconds later.
  if (Math.floor(at / 1000) < Math.floor((now.getTime() - MAX_AGE_MS) / 1000)) throw validationError('event_time', 'at most 7 days old');
  if (at > now.getTime() + CLOCK_SKEW_MS) throw validationError('event_time', 'not in the future');
  return new Date(at).toISOString();
}

function checkValue(value: number | undefined, currency: string | undefined): { value?: number; currency?: string } {
  if (value !== undefined && (!Number.isFinite(value) || value < 0 || value > MAX_CONVERSION_VALUE)) throw validationError('value', 'a number from 0 to 10^12');
  if (currency !== undefined) {
    const code = currency.toUpperCase();
    if (!isCurrencyCode(code)) throw validationError('currency', 'an ISO 4217 code such as PLN or EUR');
    // The spec requires currency with value, not the other way round: a currency alone is kept (and sent).
    return value === undefined ? { currency: code } : { value, currency: code };
  }
  if (value !== undefined) throw validationError('currency', 'required with value');
  return {};
}

/** An e-mail a conversion takes: one address (no space, one @) or its SHA-256 digest. */
export const isConversionEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+$/.test(value) || isHexDigest(value);

function checkIdentifiers(c: CheckedInput): void {
  if (c.email !== undefined && !isConversionEmail(c.email)) throw validationError('email', 'an e-mail address');
  if (c.clientIpAddress !== undefined && isIP(c.clientIpAddress) === 0) throw validationError('client_ip_address', 'an IPv4 or IPv6 address');
  if (c.eventSourceUrl !== undefined && !/^https?:\/\/\S+$/.test(c.eventSourceUrl)) throw validationError('event_source_url', 'an http(s) URL');
  if (c.contentIds !== undefined && (c.contentIds.length > 100 || c.contentIds.some((id) => id.trim() === '' || charCount(id) > 128))) {
    throw validationError('content_ids', 'at most 100 ids of 1-128 characters');
  }
  // No identifier is required: the specification marks only source, external_id, status and consent as required.
  // An event the platform cannot match to anyone is refused there, and its delivery shows that refusal.
}

export function checkConversion(input: ConversionInput, now: Date): CheckedInput {
  const triggerValue = input.trigger.kind === 'status' ? input.trigger.status : input.trigger.stage;
  const externalId = text('external_id', input.externalId, EXTERNAL_ID_MAX_CHARS);
  if (externalId === undefined) throw validationError('external_id', charsRule(1, EXTERNAL_ID_MAX_CHARS));
  const status = text('status', triggerValue, STATUS_MAX_CHARS);
  if (status === undefined) throw validationError('status', charsRule(1, STATUS_MAX_CHARS));
  const checked: CheckedInput = {
    organizationId: input.organizationId,
    sourceId: input.sourceId,
    trigger: input.trigger.kind === 'status' ? { kind: 'status', status } : { kind: 'stage', stage: status },
    externalId,
    eventTime: checkEventTime(input.eventTime, now),
    eventId: text('event_id', input.eventId, 128),
    email: text('email', input.email, 254),
    phone: phoneText(input.phone),
    leadId: text('lead_id', input.leadId, 32),
    userId: text('user_id', input.userId, 128),
    fbp: text('fbp', input.fbp, 500),
    fbc: text('fbc', input.fbc, 500),
    eventSourceUrl: text('event_source_url', input.eventSourceUrl, 2000),
    trackingId: text('tracking_id', input.trackingId, 128),
    clientIpAddress: text('client_ip_address', input.clientIpAddress, 45),
    clientUserAgent: text('client_user_agent', input.clientUserAgent, 1000),
    contentIds: input.contentIds?.map((id) => id.trim()),
    ...checkValue(input.value, text('currency', input.currency, 3)),
  };
  checkIdentifiers(checked);
  return checked;
}
