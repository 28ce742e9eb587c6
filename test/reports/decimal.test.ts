// Exact sums of numeric texts: the creative report adds the database's partial sums this way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sumDecimalTexts } from '../../queries/reports/decimal.ts';

test('Decimal sums: fractions add exactly where doubles would not', () => {
  assert.is(sumDecimalTexts(['0.1', '0.2']), '0.3');
  assert.is(Number(sumDecimalTexts(['0.1', '0.2'])), 0.3);
  assert.is(sumDecimalTexts(['12.50', '0.125', '-3']), '9.625');
  assert.is(sumDecimalTexts(['-0.5', '0.25']), '-0.25');
});

test('Decimal sums: integers, small and beyond 2^53', () => {
  assert.is(sumDecimalTexts(['1', '2', '39']), '42');
  assert.is(sumDecimalTexts(['9007199254740993', '1']), '9007199254740994');
  assert.is(sumDecimalTexts(['0']), '0');
});

test('Decimal sums: a text that is not a decimal is refused', () => {
  assert.throws(() => sumDecimalTexts(['1.5', '1e3']));
});

test.run();
