// Signed tiles: on random day values summed into buckets as the projectors keep them, every cover gives
// exactly the sums of its days, for the total and for each trend week, and reads no more rows than the plain tiling.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDays, bucketOf, dayNumber, GRAINS, tileRange } from '../../projections/reporting_shared/days.ts';
import { creativeTiles, totalTiles, type FactTile } from '../../queries/reports/signed-tiles.ts';

let seed = 11;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

/** Integer values per day (exact sums), and each bucket's sum as the facts tables keep it. */
function facts(firstDay: number, days: number) {
  const day = new Map<number, number>();
  for (let d = firstDay; d < firstDay + days; d++) day.set(d, Math.floor(rnd() * 1000));
  const bucket = new Map<string, number>();
  for (const [d, v] of day) for (const g of GRAINS) {
    const key = `${g}:${bucketOf(d, g)}`;
    bucket.set(key, (bucket.get(key) ?? 0) + v);
  }
  const sumDays = (from: number, to: number) => { let s = 0; for (let d = from; d <= to; d++) s += day.get(d) ?? 0; return s; };
  const read = (t: FactTile) => bucket.get(`${t.grain}:${dayNumber(t.start)}`) ?? 0;
  return { sumDays, read };
}

const windows = (to: string, weeks: number) =>
  Array.from({ length: weeks }, (_, i) => ({ from: addDays(to, -7 * (weeks - i) + 1), to: addDays(to, -7 * (weeks - 1 - i)) }));

test('signed tiles: the total and every trend week sum exactly their days, whatever the weekday of `to`', () => {
  const base = dayNumber('2025-01-01');
  const { sumDays, read } = facts(base - 400, 1200);
  for (let n = 0; n < 3000; n++) {
    const to = addDays('2025-06-01', Math.floor(rnd() * 300));
    const weeks = 4 + Math.floor(rnd() * 5);
    const ws = windows(to, weeks);
    const from = addDays(ws[0].from, -Math.floor(rnd() * 340));
    const tiles = creativeTiles(ws, from);
    const total = tiles.reduce((s, t) => s + t.total * read(t), 0);
    assert.is(total, sumDays(dayNumber(from), dayNumber(to)), `total ${from}..${to}`);
    for (let w = 0; w < weeks; w++) {
      const got = tiles.reduce((s, t) => s + (t.plus === w ? read(t) : 0) - (t.minus === w ? read(t) : 0), 0);
      const week = ws[weeks - 1 - w];
      assert.is(got, sumDays(dayNumber(week.from), dayNumber(week.to)), `week ${w} of ${to}`);
    }
    assert.ok(tiles.length <= tileRange(from, to).length + 7 * weeks, 'no more rows than the plain tiling');
  }
});

test('signed tiles: a total alone sums its days with at most as many rows as the plain tiling', () => {
  const { sumDays, read } = facts(dayNumber('2023-01-01'), 1500);
  for (let n = 0; n < 3000; n++) {
    const from = addDays('2023-03-01', Math.floor(rnd() * 700));
    const to = addDays(from, Math.floor(rnd() * 366));
    const tiles = totalTiles(from, to);
    assert.is(tiles.reduce((s, t) => s + t.total * read(t), 0), sumDays(dayNumber(from), dayNumber(to)), `${from}..${to}`);
    assert.ok(tiles.every((t) => t.plus === -1 && t.minus === -1 && Math.abs(t.total) === 1));
    assert.ok(tiles.length <= tileRange(from, to).length);
  }
});

test('signed tiles: 4 weeks ending on a Friday read 14 rows, not 28; ending on a Sunday, 4', () => {
  const friday = windows('2026-11-27', 4);
  assert.is(creativeTiles(friday).length, 14);
  assert.is(creativeTiles(windows('2026-11-29', 4)).length, 4);
});

test.run();
