// Sums read from the database as one text per row (numbers separated by ' '), parsed without a string per
// number: the pg driver then parses one field instead of one per sum, and no row object is built. Shared by the
// campaign and creative reports' fact reads, with the columns they sum and how a signed tile counts.
import type { Sums } from './metrics.ts';

/** The sums of each fact table, in the order of their texts. */
export const SPEND_SUMS = ['spend', 'platform_leads', 'impressions', 'clicks', 'reach'] as const;
export const LEAD_SUMS = ['leads', 'qualified', 'rejected', 'sales', 'revenue'] as const;

/**
 * SQL: the sum of the fact column behind `sum` over the rows a FILTER keeps. Money is held in millionths
 * (`spend_micros`, `revenue_micros`), and bigint columns are summed as float8: PostgreSQL sums a bigint through
 * numeric, at about twice the cost, while float8 adds these integers exactly as long as a sum stays below 2^53 (9e9
 * currency units in one row of a report). Integer columns sum to a bigint as they are.
 */
export function sumOf(sum: keyof Sums, filter?: string): string {
  const column = FLOAT_SUMMED[sum];
  const aggregate = column === undefined ? `sum(f.${sum})` : `sum(f.${column}::float8)`;
  return filter === undefined ? aggregate : `${aggregate} FILTER (WHERE ${filter})`;
}

/** The columns summed as float8 (sumOf), by the sum they give. */
const FLOAT_SUMMED: Partial<Record<keyof Sums, string>> = {
  spend: 'spend_micros', revenue: 'revenue_micros', impressions: 'impressions', clicks: 'clicks', reach: 'reach', platform_leads: 'platform_leads',
};

/** SQL: a sum as decimal digits (a float8 sum would print 1e+15 from there on). */
export const asDigits = (sum: keyof Sums, expression: string) => (FLOAT_SUMMED[sum] === undefined ? expression : `(${expression})::int8`);

/**
 * SQL: the sum of `sum` over the rows of tiles counted +1 less those counted -1 (`t.total`, signed-tiles.ts);
 * never NULL. A FILTER per sign is cheaper than a CASE per row.
 */
export const netSum = (sum: keyof Sums) =>
  asDigits(sum, `coalesce(${sumOf(sum, 't.total = 1')}, 0) - coalesce(${sumOf(sum, 't.total = -1')}, 0)`);

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

/** The sums held in millionths of the currency unit. */
const IN_MICROS: ReadonlySet<keyof Sums> = new Set(['spend', 'revenue']);

/**
 * Parses the numbers of one segment of a sums text into `into`, each the same double as Number() of its
 * decimal text (money: of its millionths as a decimal): its digits as an integer n below 2^53 and 10^k are exact
 * doubles, so n / 10^k is the correctly rounded value (longer texts go through Number()). Returns the index after
 * the segment's separator.
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
    const micros = IN_MICROS.has(column);
    const decimals = Math.max(scale, 0) + (micros ? 6 : 0);
    if (n >= 2 ** 53 || decimals > 22) into[column] = Number(micros ? `${text.slice(start, at)}e-6` : text.slice(start, at));
    else {
      const value = decimals > 0 ? n / POW10[decimals] : n;
      into[column] = negative ? -value : value;
    }
    at++; // the separator
  }
  return at;
}
