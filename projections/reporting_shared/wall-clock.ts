// The instant of a wall-clock time in a time zone, from the same zone data (ICU's) as the local days of the
// reports (days.ts): so a lead list's day and a report's day hold the same leads. PostgreSQL's AT TIME ZONE
// was used before; it reads CET, EET, MET and WET as fixed abbreviations (no summer time), its zone data
// can be newer than Node's, and it reads a repeated midnight (Havana's last DST night) as the second one.
const DAY_MS = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formats.set(timezone, format);
  }
  return format;
}

/** The zone's offset from UTC at an instant, in milliseconds (its wall clock read as UTC, less the instant). */
export function offsetAt(timezone: string, ms: number): number {
  const at = Math.floor(ms / 1000) * 1000;
  const part: Record<string, string> = {};
  for (const p of formatFor(timezone).formatToParts(new Date(at))) part[p.type] = p.value;
  const year = part.era === 'BC' ? 1 - Number(part.year) : Number(part.year);
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999.
  wall.setUTCFullYear(year, Number(part.month) - 1, Number(part.day));
  wall.setUTCHours(Number(part.hour), Number(part.minute), Number(part.second));
  return wall.getTime() - at;
}

/**
 * The instant a wall-clock time (YYYY-MM-DDTHH:MM[:SS[.fff]], no offset) names in the zone. A time a change
 * of offset skips is read with the offset before the change (02:30 on Warsaw's spring-forward night is
 * 03:30 summer time), so a day's start is its first instant; a time a change repeats is its first occurrence.
 * Offsets are taken a day either side, as no zone changes its offset twice within two days.
 */
export function instantOfWallClock(timezone: string, wall: string): Date {
  const asUtc = Date.parse(`${wall}Z`);
  if (Number.isNaN(asUtc)) return new Date(NaN);
  const before = offsetAt(timezone, asUtc - DAY_MS);
  const after = offsetAt(timezone, asUtc + DAY_MS);
  const fits = [asUtc - before, asUtc - after].filter((t) => offsetAt(timezone, t) === asUtc - t);
  return new Date(fits.length ? Math.min(...fits) : asUtc - before);
}

/** The first instant of a day (YYYY-MM-DD) in the zone. */
export function startOfDay(timezone: string, day: string): Date {
  return instantOfWallClock(timezone, `${day}T00:00:00`);
}
