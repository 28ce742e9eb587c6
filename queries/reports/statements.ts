// A report's statements, two at a time. Each is CPU-bound in its own backend: started all at once (up to eight for
// a creative report) they share the database's cores with each other and with node parsing the first answers, and
// now and then one of them finishes far behind the rest. Two at a time kept the median and cut the slowest: on the
// full-size bench data (2 cores), creative report p99 at 90 days 106-119 -> 71-76 ms, at 366 days 145-152 -> 98-105 ms,
// p50 unchanged (docs/reports.md).
import pLimit from 'p-limit';
import type { Queryable } from '../../src/db/pool.ts';

export const REPORT_STATEMENTS_AT_ONCE = 2;

/** `db` running at most `limit` of the statements given to it at once, the others in the order they came. */
export function statementsAtMost(db: Queryable, limit = REPORT_STATEMENTS_AT_ONCE): Queryable {
  const slots = pLimit(limit);
  // pg's query() has many overloads; the reports call only its promise forms, whose arguments pass through unchanged.
  const query = db.query.bind(db) as (...args: unknown[]) => Promise<unknown>;
  return { query: ((...args: unknown[]) => slots(() => query(...args))) as unknown as Queryable['query'] };
}
