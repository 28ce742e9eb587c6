// Sums read from the database as one text per row (numbers separated by ' '), parsed without a string per
// number: the pg driver then parses one field instead of one per sum, and no row object is built. Shared by the
// campaign and creative reports' fact reads, with the columns they sum and how a signed tile counts.
import type { Sums } from './metrics.ts';

/** The sums of each fact table, in the order of their texts. */
export const SPEND_SUMS = ['spend', 'platform_leads', 'impressions', 'clicks', 'reach'] as const;
export const LEAD_SUMS = ['leads', 'qualified', 'rejected', 'sales', 'revenue'] as const;

/**
 * SQL: the sum of fact column `column` over the rows of tiles counted +1 less those counted -1 (`t.total`,
 * signed-tiles.ts); never NULL. A FILTER per sign is cheaper than a CASE per row.
 */
export const netSum = (column: string) =>
  `coalesce(sum(f.${column}) FILTER (WHERE t.total = 1), 0) - coalesce(sum(f.${column}) FILTER (WHERE t.total = -1), 0)`;

/**
 * Whether sums read are all zero (null: none read). Such a row is left out of every fact read: with signed tiles
 * its only facts may lie on days a bucket held beyond the range (taken away again), which reading only the
 * range's days would not have seen. (A row whose facts in the range are all zero has nothing to show either.)
 */
export function allZero(sums: Partial<Sums> | null, columns: readonly (keyof Sums)[]): boolean {
  if (sums === null) return true;
  for (const c of columns) if (sums[c] !== 0) return false;
  return true;
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * Parses the numbers of one segment of a sums text into `into`, each the same double as Number() of its
 * decimal text: its digits as an integer n below 2^53 and 10^k are exact doubles, so n / 10^k is the correctly
 * rounded value (longer texts go through Number()). Returns the index after the segment's separator.
 */
export function parseSums(text: string, at: number, columns: readonly (keyof Sums)[], into: Partial<Sums>): number {
  for (const column of columns) {
    const start = at;
    const negative = text.charCodeAt(at) === 45; // '-'
    if (negative) at++;
    let n = 0;
    let scale = -1;
    for (; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c === 46) scale = 0; // '.'
      else if (c >= 48 && c <= 57) {
        n = n * 10 + (c - 48);
        if (scale >= 0) scale++;
      } else break;
    }
    if (n >= 2 ** 53 || scale > 22) into[column] = Number(text.slice(start, at));
    else {
      const value = scale > 0 ? n / POW10[scale] : n;
      into[column] = negative ? -value : value;
    }
    at++; // the separator
  }
  return at;
}
