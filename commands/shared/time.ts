// The span of caller-given times the service stores and compares: years 0001-9999 in UTC. JavaScript writes
// the year before 0001 as 0000, which PostgreSQL refuses as a date; such a time is a bad value (400), never a
// failed query (500) or an event that stops a projector.
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

export const TIME_SPAN_MESSAGE = 'a time in the years 0001-9999 (UTC)';

/**
 * Whether an ISO 8601 day or date-time (read as UTC when it has no offset) does not fall outside the years
 * 0001-9999 in UTC. Text that is no time at all passes: that is the format check's to refuse, once.
 */
export function isWithinTimeSpan(iso: string): boolean {
  // Only ISO 8601 text is judged here (Date.parse also reads loose text such as "12345" as a year).
  if (!/^([+-]\d{6}|\d{4})-\d{2}-\d{2}/.test(iso)) return true;
  const utc = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`;
  const at = Date.parse(utc);
  return Number.isNaN(at) || isWithinTimeSpanMs(at);
}

/** Whether a time in milliseconds since the epoch falls in the years 0001-9999 in UTC (NaN does not). */
export function isWithinTimeSpanMs(ms: number): boolean {
  return ms >= EARLIEST && ms <= LATEST;
}

/**
 * A time from a query string whose '+' offset arrived unencoded, read as a space ("10:00:00 01:00"), or
 * an offset without its colon: the offset as ISO 8601 writes it ("+01:00"). Anything else is left as it is.
 */
export function offsetFromQuery(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim().replace(/[ +](\d{2}):?(\d{2})$/, '+$1:$2');
}

/** The date-times isoFromCaller reads (each with a zone); also the pattern the OpenAPI document publishes for them. */
export const CALLER_ZONED_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * ISO 8601 as integrators' libraries write it, in the one form the date-time check reads: an offset without
 * its colon (+0200, as PHP's DATE_ISO8601 and the platform write it) or without minutes (+02), a time
 * without seconds, a space or a lower-case t/z. A time without any zone stays as it is, so it is refused:
 * the hour it means is unknown.
 */
export function isoFromCaller(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = CALLER_ZONED_TIME.exec(value.trim());
  if (!m) return value;
  const [, day, minutes, seconds = ':00', zone] = m;
  const offset = /^[Zz]$/.test(zone) ? 'Z' : zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  return `${day}T${minutes}${seconds}${offset}`;
}
