// One pagination for every list: limit/order/updated_since, keyset queries on (updated_at, id), and
// opaque cursors signed with the service's key and bound to the list, its filters, its order and the
// organisation, so a cursor from anywhere else is refused as invalid_cursor.
// Positions compare at the precision the cursor carries (milliseconds, ISO 8601): lists page over
// updated_at values written from event times (milliseconds), never from now() (microseconds).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../commands/shared/errors.ts';
import { isoFromCaller, isWithinTimeSpan, isWithinTimeSpanMs, offsetFromQuery, TIME_SPAN_MESSAGE } from '../../commands/shared/time.ts';

/** `?cursor=` or `?limit=` with nothing after it is the parameter left out (a client that always sends it). */
const blankIsAbsent = (value: unknown) => (value === '' ? undefined : value);

/**
 * A whole number in a path or query string, written in decimal digits (an optional '-'); anything else, such
 * as 0x10, 1e1, 1.0 or +5 (which Number() would read as 16, 10, 1 and 5), stays text and is refused as not a number.
 */
export const decimalInteger = (value: unknown) => {
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return value;
  // Over 308 digits Number() is Infinity, which is no whole number: read such a one as the largest double of its
  // sign, still whole, so a bound names itself ("<=100") and a job number is one no job has (404).
  const number = Number(value);
  return Number.isFinite(number) ? number : Math.sign(number) * Number.MAX_VALUE;
};

/**
 * A whole number written in decimal digits; anything else is named so, not "expected number, received string".
 * Only what is not a whole number reads so: a bound added after it (limit's 1-100) names itself ("limit=101" read
 * "must be a whole number"), and a number past 2^53 is still whole (a job number of 20 digits is one no job has).
 */
export const wholeNumber = () => z.number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a whole number' : undefined) })
  .refine(Number.isInteger, { error: 'must be a whole number', abort: true })
  .meta({ type: 'integer' });

/** What updated_since accepts: a day, or a day and time with or without seconds and an offset (see lenientTime). */
const CALLER_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

export const listParams = {
  limit: z.preprocess((v) => decimalInteger(blankIsAbsent(v)), wholeNumber().min(1).max(100).default(25)).describe('Page size, 1-100'),
  // Any string: whatever is not a cursor of this list is invalid_cursor, not validation_error.
  cursor: z.preprocess(blankIsAbsent, z.string().optional()).describe('next_cursor of the previous page of the same list'),
  order: z.preprocess((v) => (typeof v === 'string' ? blankIsAbsent(v.toLowerCase()) : v), z.enum(['asc', 'desc']).default('desc'))
    .describe('Sort by updated_at then id'),
  updated_since: z.preprocess((v) => lenientTime(blankIsAbsent(v)), z.iso.datetime({ offset: true }).refine(isWithinTimeSpan, TIME_SPAN_MESSAGE).optional())
    .describe('Only records changed at or after this time: ISO 8601, e.g. 2024-05-01T10:00:00Z or 2024-05-01T12:00+02:00; without an offset it is UTC, a bare day is its midnight UTC')
    // The forms lenientTime reads, in place of the offset-only date-time pattern the inner schema would publish.
    .meta({ pattern: CALLER_TIME.source }),
};

/**
 * ISO 8601 as callers write it in a query string: a '+' offset that arrived as a space (an unencoded '+'),
 * a time without an offset (UTC, as every time of this API) or a bare day (its midnight, UTC), and the forms
 * event_time takes (+0200, +02, no seconds, a space or a lower-case t and z).
 */
export function lenientTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = offsetFromQuery(value) as string;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return `${text}T00:00:00Z`;
  return isoFromCaller(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text);
}

/** The query schema of a list endpoint: the common parameters plus its own filters; unknown ones are refused. */
export function listQuery<T extends z.ZodRawShape>(filters: T) {
  return z.object({ ...listParams, ...filters }).strict();
}

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });
}

export interface Page {
  limit: number;
  order: 'asc' | 'desc';
  updatedSince: string | null;
  /** The last row of the previous page, or null on the first page. */
  after: { updatedAt: string; id: string } | null;
  /** What the cursor is bound to. */
  binding: string;
}

interface CursorBody {
  b: string;
  u: string;
  i: string;
}

const MAX_CURSOR = 1024;

function sign(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest().subarray(0, 16);
}

/**
 * The first instant a caller's "at or after" time admits, in the read models' millisecond precision: a finer
 * time (Python writes microseconds) is rounded up, as a record changed at .677 changed before .677123. Rounded
 * down, as Date reads it, such a list showed records older than the time asked for.
 */
export function atOrAfter(value: string): string {
  const instant = new Date(value);
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  // Not past the last millisecond of 9999: one more is the year 10000, which toISOString writes +010000-01-01T...
  // and PostgreSQL refuses (a 500); nothing the service keeps changed in that last millisecond either.
  if (/[1-9]/.test(fraction.slice(3)) && isWithinTimeSpanMs(instant.getTime() + 1)) instant.setTime(instant.getTime() + 1);
  return instant.toISOString();
}

/** Bind the page to (list, organisation, filters, order); verify and open the cursor if one was given. */
export function openPage(
  query: { limit: number; order: 'asc' | 'desc'; updated_since?: string; cursor?: string } & Record<string, unknown>,
  scope: { list: string; organizationId: string },
  key: Buffer,
): Page {
  const updatedSince = query.updated_since ? atOrAfter(query.updated_since) : null;
  // updated_since is bound as the time it names: '...T12:00+02:00' is the same filter as '...T10:00:00.000Z'.
  const filters = Object.entries({ ...query, updated_since: updatedSince ?? undefined })
    .filter(([name, value]) => name !== 'cursor' && name !== 'limit' && value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  const binding = createHmac('sha256', key).update(JSON.stringify([scope.list, scope.organizationId, filters])).digest('base64url').slice(0, 16);
  const page: Page = { limit: query.limit, order: query.order, updatedSince, after: null, binding };
  if (query.cursor !== undefined) page.after = readCursor(query.cursor, binding, key);
  return page;
}

function readCursor(cursor: string, binding: string, key: Buffer): { updatedAt: string; id: string } {
  const parts = cursor.length <= MAX_CURSOR ? cursor.split('.') : [];
  const [payload, mac] = parts;
  if (parts.length !== 2 || !payload || !mac) throw new ApiError('invalid_cursor');
  const expected = sign(key, payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('invalid_cursor');
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw new ApiError('invalid_cursor');
  }
  if (body.b !== binding || typeof body.u !== 'string' || typeof body.i !== 'string') throw new ApiError('invalid_cursor');
  return { updatedAt: body.u, id: body.i };
}

function writeCursor(row: { updatedAt: string; id: string }, binding: string, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify({ b: binding, u: row.updatedAt, i: row.id } satisfies CursorBody)).toString('base64url');
  return `${payload}.${sign(key, payload).toString('base64url')}`;
}

/** The cursor of the page after the row at this position, for lists that write their envelope themselves. */
export function cursorAfter(row: { updatedAt: string; id: string }, page: Page, key: Buffer): string {
  return writeCursor(row, page.binding, key);
}

/**
 * The keyset part of a list query. `alias` qualifies the columns (e.g. 'c.'); `next` is the next free
 * parameter number. Returns SQL fragments to AND into the WHERE clause, the ORDER BY, and LIMIT (one
 * more row than the page, to learn has_more).
 */
export function keyset(page: Page, next: number, alias = ''): { where: string; orderBy: string; limit: string; params: unknown[] } {
  const params: unknown[] = [];
  const conditions: string[] = [];
  if (page.updatedSince) {
    params.push(page.updatedSince);
    conditions.push(`${alias}updated_at >= $${next + params.length - 1}::timestamptz`);
  }
  if (page.after) {
    params.push(page.after.updatedAt, page.after.id);
    const cmp = page.order === 'desc' ? '<' : '>';
    conditions.push(`(${alias}updated_at, ${alias}id) ${cmp} ($${next + params.length - 2}::timestamptz, $${next + params.length - 1})`);
  }
  const dir = page.order === 'desc' ? 'DESC' : 'ASC';
  return {
    where: conditions.length ? conditions.join(' AND ') : 'TRUE',
    orderBy: `${alias}updated_at ${dir}, ${alias}id ${dir}`,
    limit: String(page.limit + 1),
    params,
  };
}

/** The list envelope from the rows a keyset query returned (limit + 1 of them at most). */
export function closePage<Row, Item>(
  rows: Row[],
  page: Page,
  key: Buffer,
  position: (row: Row) => { updatedAt: string; id: string },
  toItem: (row: Row) => Item,
): { data: Item[]; next_cursor: string | null; has_more: boolean } {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  return {
    data: kept.map(toItem),
    next_cursor: hasMore ? writeCursor(position(kept[kept.length - 1]), page.binding, key) : null,
    has_more: hasMore,
  };
}
