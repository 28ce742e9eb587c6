// Calendar days for the sync windows: "today" in a given time zone, day arithmetic, and the range to sync.
import { JobError } from '../handler.ts';
import { isDay as isCalendarDay } from '../../../../projections/reporting_shared/days.ts';

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of the instant in the zone (an unknown zone falls back to UTC rather than failing the sync). */
export function dayIn(timezone: string, at: Date): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  } catch {
    return at.toISOString().slice(0, 10);
  }
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** A day the calendar has, written YYYY-MM-DD: Date.parse alone would roll 2030-02-30 over to 2 March. */
export function isDay(value: unknown): value is string {
  return typeof value === 'string' && isCalendarDay(value);
}

/**
 * The days a spend sync covers: the params' since/until when given; a backfill of `backfillDays` after a
 * connection; otherwise the rolling window of the last `windowDays` days, which the platform still revises.
 */
export function spendRange(params: Record<string, unknown>, today: string, o: { windowDays: number; backfillDays: number }): { since: string; until: string } {
  if (params.since !== undefined || params.until !== undefined) {
    const since = params.since ?? addDays(today, -(o.windowDays - 1));
    const until = params.until ?? today;
    if (!isDay(since) || !isDay(until) || since > until) throw new JobError(`bad range ${String(since)}..${String(until)} (YYYY-MM-DD, since <= until)`, true);
    return { since, until };
  }
  const days = params.backfill === true ? o.backfillDays : o.windowDays;
  return { since: addDays(today, -(days - 1)), until: today };
}
