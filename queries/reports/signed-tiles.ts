// Signed tiles: days summed as whole buckets less the days those buckets hold beyond the ones asked for, when
// that reads fewer fact rows than tiling the days from inside. A bucket row is the exact sum of its day rows
// (numeric and integer columns, kept so by both projectors), so a bucket minus some of its days is exactly the
// rest. A trend week that does not start on a Monday is 7 day rows from inside; as its Monday week less a few
// days, the days at the seam of two trend weeks are read once and count in both (added to one, taken from the
// other), so 4 such weeks read about 14 rows per ad instead of 28.
import { bucketOf, dayNumber, dayText, tileRange, type Bucket, type Grain } from '../../projections/reporting_shared/days.ts';

/** A bucket whose rows are added (+1) or taken away (-1). */
export interface SignedTile extends Bucket {
  /** +1, -1, or 0 for a tile of the creative report read for its trend weeks only. */
  total: number;
}

/** A tile of the creative report's facts: how its rows count in the total and in the trend weeks. */
export interface FactTile extends SignedTile {
  /** The trend week its rows add to (0 = the week ending on `to`), or -1. */
  plus: number;
  /** The trend week its rows are taken from, or -1. */
  minus: number;
}

/** Coefficients of the buckets, by key: first day x 64 + grain (every grain is below 64). */
type Cover = Map<number, number>;

const keyOf = (grain: Grain, day: number) => day * 64 + grain;

function add(cover: Cover, grain: Grain, day: number, sign: number): void {
  const key = keyOf(grain, day);
  const coefficient = (cover.get(key) ?? 0) + sign;
  if (coefficient === 0) cover.delete(key);
  else cover.set(key, coefficient);
}

/** The days from u up to v (exclusive), as buckets of one grain, with `sign`; from v up to u with the opposite sign when v < u. Both ends are aligned on the grain. */
function segment(cover: Cover, grain: Grain, u: number, v: number, sign: number): void {
  const [from, to, s] = u <= v ? [u, v, sign] : [v, u, -sign];
  for (let day = from; day < to; day += grain) add(cover, grain, day, s);
}

const floorTo = (x: number, grain: Grain) => bucketOf(x, grain);
const ceilTo = (x: number, grain: Grain) => (bucketOf(x, grain) === x ? x : bucketOf(x, grain) + grain);
const roundings = (x: number, grain: Grain) => [...new Set([floorTo(x, grain), ceilTo(x, grain)])];

function fromTiles(tiles: Bucket[]): Cover {
  const cover: Cover = new Map();
  for (const t of tiles) add(cover, t.grain, dayNumber(t.start), 1);
  return cover;
}

const isUnit = (cover: Cover) => [...cover.values()].every((c) => c === 1 || c === -1);

/**
 * Covers of days a..b (inclusive day numbers): the plain tiling from inside, then the days before b + 1 less
 * the days before a, each end reached by a 56-day then a 7-day boundary at or on either side of it. Every
 * candidate sums to exactly a..b; those that would count a bucket twice are left out.
 */
function rangeCovers(a: number, b: number): Cover[] {
  const covers = [fromTiles(tileRange(dayText(a), dayText(b)))];
  const end = b + 1;
  for (const a56 of roundings(a, 56)) for (const a7 of roundings(a, 7)) for (const b56 of roundings(end, 56)) for (const b7 of roundings(end, 7)) {
    const cover: Cover = new Map();
    segment(cover, 56, a56, b56, 1);
    segment(cover, 7, b56, b7, 1);
    segment(cover, 1, b7, end, 1);
    segment(cover, 7, a56, a7, -1);
    segment(cover, 1, a7, a, -1);
    if (isUnit(cover)) covers.push(cover);
  }
  return covers;
}

/** The cover of a..b with the fewest buckets (the plain tiling on a tie). */
const rangeCover = (a: number, b: number): Cover => rangeCovers(a, b).reduce((best, c) => (c.size < best.size ? c : best));

/** Week s..s+6 as its days, as its Monday week less the days before s plus the next week's, or as the days of its Monday week from s plus the next Monday week less its days from s + 7. */
function weekCover(s: number, way: 'days' | 'head' | 'tail'): Cover {
  const cover: Cover = new Map();
  const monday = floorTo(s, 7);
  if (way === 'days' || monday === s) {
    if (monday === s) add(cover, 7, s, 1);
    else segment(cover, 1, s, s + 7, 1);
  } else if (way === 'head') {
    add(cover, 7, monday, 1);
    segment(cover, 1, monday, s, -1);
    segment(cover, 1, monday + 7, s + 7, 1);
  } else {
    segment(cover, 1, s, monday + 7, 1);
    add(cover, 7, monday + 7, 1);
    segment(cover, 1, s + 7, monday + 14, -1);
  }
  return cover;
}

/**
 * Tiles for the creative report's facts: the trend weeks (`weeks`, oldest first, each `from` its first day), and,
 * when `totalFrom` is given (at or before the first week), the total over totalFrom..the last week's end.
 */
export function creativeTiles(weeks: { from: string }[], totalFrom?: string): FactTile[] {
  return remembered(`${weeks[0].from}|${weeks.length}|${totalFrom ?? ''}`, () => chooseCreativeTiles(weeks.map((w) => dayNumber(w.from)), totalFrom));
}

/** Tiles already chosen, by their parameters: a report asks for the same ones for each fact table and period. */
const memo = new Map<string, FactTile[]>();
const MEMO_SIZE = 1000;

function remembered(key: string, choose: () => FactTile[]): FactTile[] {
  let tiles = memo.get(key);
  if (!tiles) {
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(key, (tiles = choose()));
  }
  return tiles;
}

function chooseCreativeTiles(starts: number[], totalFrom: string | undefined): FactTile[] {
  const heads = totalFrom === undefined || dayNumber(totalFrom) >= starts[0] ? [new Map()] : rangeCovers(dayNumber(totalFrom), starts[0] - 1);
  let best: Map<number, Roles> | undefined;
  // Chosen together: a head that ends on a bucket the weeks read anyway costs nothing more.
  for (const way of ['days', 'head', 'tail'] as const) {
    const weekCovers = starts.map((s) => weekCover(s, way));
    for (const head of heads) {
      const roles = merge(weekCovers, head, totalFrom !== undefined);
      if (roles && (!best || roles.size < best.size)) best = roles;
    }
  }
  return [...best!].map(([key, r]) => Object.freeze({ ...bucketOfKey(key), ...r }));
}

/** The tiles of a range's total alone (no trend week). */
export function totalTiles(from: string, to: string): FactTile[] {
  return remembered(`${from}..${to}`, () =>
    [...rangeCover(dayNumber(from), dayNumber(to))].map(([key, total]) => Object.freeze({ ...bucketOfKey(key), total, plus: -1, minus: -1 })));
}

function bucketOfKey(key: number): Bucket {
  return { grain: (key % 64) as Grain, start: dayText(Math.floor(key / 64)) };
}

interface Roles {
  total: number;
  plus: number;
  minus: number;
}

/** Each bucket's total and week roles; undefined when a bucket would add to two weeks or count twice. */
function merge(weekCovers: Cover[], head: Cover, withTotal: boolean): Map<number, Roles> | undefined {
  const roles = new Map<number, Roles>();
  const rolesOf = (key: number) => {
    let r = roles.get(key);
    if (!r) roles.set(key, (r = { total: 0, plus: -1, minus: -1 }));
    return r;
  };
  for (const [key, c] of head) rolesOf(key).total += c;
  for (let i = 0; i < weekCovers.length; i++) {
    const week = weekCovers.length - 1 - i;
    for (const [key, c] of weekCovers[i]) {
      const r = rolesOf(key);
      if (withTotal) r.total += c;
      if (c === 1 && r.plus === -1) r.plus = week;
      else if (c === -1 && r.minus === -1) r.minus = week;
      else return undefined;
    }
  }
  for (const [key, r] of roles) {
    if (Math.abs(r.total) > 1) return undefined;
    // A bucket whose roles all cancelled is not read.
    if (r.total === 0 && r.plus === -1 && r.minus === -1) roles.delete(key);
  }
  return roles;
}
