// Calendar days as integers, the local day of an instant in a time zone, and the grains of the
// pre-aggregated report facts: a range is answered from a few 56-day and 7-day buckets plus loose days.
const MS_DAY = 86_400_000;
const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/** Days since 1970-01-01 of a YYYY-MM-DD day. */
export function dayNumber(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / MS_DAY);
}

export function dayText(n: number): string {
  return new Date(n * MS_DAY).toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  return dayText(dayNumber(day) + n);
}

/** A real calendar day written YYYY-MM-DD (2024-02-30 is not one). */
export function isDay(text: string): boolean {
  return DAY_TEXT.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && dayText(dayNumber(text)) === text;
}

/** Inclusive length in days of from..to. */
export function spanDays(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}

/**
 * Local day of instants in one time zone. Every current zone offset is a multiple of 15 minutes, so a
 * 15-minute UTC slot rarely straddles a local midnight: the day of a slot whose first and last instants
 * share it is kept, then a map lookup. Older offsets were not all so (Kiritimati -10:40 until 1979,
 * Monrovia -0:44:30 until 1972): in a slot holding a local midnight each instant is read by itself.
 */
export function localDays(timezone: string): (iso: string) => string {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const slots = new Map<number, string | null>();
  return (iso) => {
    const ms = Date.parse(iso);
    const slot = Math.floor(ms / 900_000);
    let day = slots.get(slot);
    if (day === undefined) {
      const first = format.format(new Date(slot * 900_000));
      day = first === format.format(new Date(slot * 900_000 + 899_999)) ? first : null;
      slots.set(slot, day);
    }
    return day ?? format.format(new Date(ms));
  };
}

/** Grains of the facts tables, in days. Each divides the next, so buckets nest. */
export const GRAINS = [1, 7, 56] as const;
export type Grain = (typeof GRAINS)[number];

/** Buckets are aligned on Monday 2001-01-01 (day 11323), so 7-day buckets are Monday-to-Sunday weeks. */
const ANCHOR = 11_323;

const mod = (a: number, b: number) => ((a % b) + b) % b;

/** First day (as a day number) of the bucket of `grain` that holds day n. */
export function bucketOf(n: number, grain: Grain): number {
  return n - mod(n - ANCHOR, grain);
}

/** bucketOf in SQL: the first day of the `grain`-day bucket holding the date `day` (both SQL expressions). */
export const bucketStartSql = (day: string, grain: string | number) =>
  `${day} - (((${day} - DATE '2001-01-01') % ${grain} + ${grain}) % ${grain})`;

export interface Bucket {
  grain: Grain;
  /** First day of the bucket, YYYY-MM-DD. */
  start: string;
}

/** The fewest aligned buckets that exactly tile from..to (inclusive): greedy from the left is optimal for nested grains. */
export function tileRange(from: string, to: string): Bucket[] {
  const last = dayNumber(to);
  const buckets: Bucket[] = [];
  let day = dayNumber(from);
  while (day <= last) {
    let grain: Grain = 1;
    for (const g of GRAINS) if (bucketOf(day, g) === day && day + g - 1 <= last) grain = g;
    buckets.push({ grain, start: dayText(day) });
    day += grain;
  }
  return buckets;
}
