// The creative report's sums texts: every number reads as the same double as Number() of its text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSums } from '../../queries/reports/sums-text.ts';
import type { Sums } from '../../queries/reports/metrics.ts';

const COLUMNS = ['spend', 'platform_leads', 'impressions', 'clicks', 'reach'] as const;

/** What Number() reads of a sum's text: money comes in millionths of the currency unit. */
const read = (values: string[]) => values.map((v, k) => Number(COLUMNS[k] === 'spend' ? `${v}e-6` : v));

function parsed(text: string): number[] {
  const into: Partial<Sums> = {};
  parseSums(text, 0, COLUMNS, into);
  return COLUMNS.map((c) => into[c] as number);
}

test('Sums texts: decimals, negatives, zeros and long numbers read as Number() reads them (money as millionths)', () => {
  const texts = ['0.1 0.2 0.3 12.50 -0.5', '0 1 -3 9007199254740993 123456789012345678901234567890',
    '1.000000000000000000000000001 -12345.678 3.14159265358979323846 100000 0.005'];
  for (const text of texts) assert.equal(parsed(text), read(text.split(' ')), text);
});

test('Sums texts: random money and counts match Number() bit for bit', () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < 20_000; i++) {
    const values = COLUMNS.map((_, k) => {
      const whole = String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 15))));
      const text = k === 0 ? `${whole}.${String(Math.floor(rnd() * 100)).padStart(2, '0')}` : k === 1 ? `${whole}.${String(Math.floor(rnd() * 1e9))}` : whole;
      return rnd() < 0.1 ? `-${text}` : text;
    });
    const text = values.join(' ');
    assert.equal(parsed(text), read(values), text);
  }
});

test('Sums texts: segments separated by | (an empty one is a week without facts)', () => {
  const text = '1500000 2 3 4 5||6250000 7 8 9 10';
  const first: Partial<Sums> = {};
  const at = parseSums(text, 0, COLUMNS, first);
  assert.is(first.spend, 1.5);
  assert.is(text.charCodeAt(at), 124);
  const second: Partial<Sums> = {};
  parseSums(text, at + 1, COLUMNS, second);
  assert.is(second.spend, 6.25);
  assert.is(second.reach, 10);
});

test.run();
