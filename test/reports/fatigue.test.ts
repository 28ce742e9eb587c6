import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fatigueOf, momentumOf, reasonOf, VERDICT_TEXT, type WeekPoint } from '../../queries/reports/fatigue.ts';

/** A week from CTR (per mille), frequency, spend and leads; 10,000 impressions unless told. */
const week = (ctrPerMille: number, frequency: number, spend: number, leads: number, impressions = 10_000): WeekPoint => ({
  impressions, clicks: Math.round((impressions * ctrPerMille) / 1000), reach: Math.round(impressions / frequency), spend, leads,
});

const test = suite('Creative fatigue on synthetic weekly series');

test('CTR well below its best week while cost per lead and frequency rise: fatigued', () => {
  // Best week 2 (CTR 2%); last week CTR 1.2% (-40%), CPL 20 -> 40 (+100%), frequency 1.2 -> 1.5 (+25%).
  const f = fatigueOf([week(18, 1.1, 200, 10), week(20, 1.2, 200, 10), week(16, 1.3, 200, 10), week(12, 1.5, 200, 5)]);
  assert.is(f.verdict, 'fatigued');
  assert.is(f.best_week, 2);
  assert.is(f.ctr_change, -0.4);
  assert.is(f.cost_per_lead_change, 1);
  assert.is(f.frequency_change, 0.25);
});

test('CTR down 25% with frequency up but cost per lead steady: fatiguing', () => {
  const f = fatigueOf([week(20, 1.0, 100, 10), week(18, 1.1, 100, 10), week(15, 1.2, 100, 10)]);
  assert.is(f.verdict, 'fatiguing');
  assert.is(f.ctr_change, -0.25);
  assert.is(f.cost_per_lead_change, 0);
});

test('CTR down 40% and cost per lead up, frequency flat: fatiguing, not fatigued', () => {
  const f = fatigueOf([week(20, 1.2, 100, 10), week(20, 1.2, 100, 10), week(12, 1.2, 100, 6)]);
  assert.is(f.verdict, 'fatiguing');
  assert.is(f.frequency_change, 0);
});

test('spend with no lead in the last week counts as a rise of cost per lead', () => {
  const f = fatigueOf([week(20, 1.0, 100, 10), week(20, 1.0, 100, 10), week(12, 1.0, 100, 0)]);
  assert.is(f.verdict, 'fatiguing');
  assert.is(f.cost_per_lead_change, null);
});

test('the last week at its best, cost per lead not rising: fresh', () => {
  const f = fatigueOf([week(15, 1.0, 100, 5), week(18, 1.0, 100, 8), week(19, 1.1, 100, 10)]);
  assert.is(f.verdict, 'fresh');
  assert.is(f.best_week, 2);
});

test('a small dip without a second signal: stable', () => {
  // CTR -15% (neither fresh nor a fatigue signal), cost per lead flat, frequency flat.
  const f = fatigueOf([week(20, 1.0, 100, 10), week(20, 1.0, 100, 10), week(17, 1.0, 100, 10)]);
  assert.is(f.verdict, 'stable');
  // CTR -30% but nothing else moving is stable too: one signal is not fatigue.
  assert.is(fatigueOf([week(20, 1.0, 100, 10), week(20, 1.0, 100, 10), week(14, 1.0, 100, 10)]).verdict, 'stable');
});

test('insufficient data: too few active weeks, or a quiet last week', () => {
  assert.is(fatigueOf([]).verdict, 'insufficient_data');
  assert.is(fatigueOf([week(20, 1, 100, 10), week(10, 2, 100, 1)]).verdict, 'insufficient_data');
  // Four weeks but only two with 1,000 impressions.
  assert.is(fatigueOf([week(20, 1, 100, 10, 900), week(20, 1, 100, 10), week(20, 1, 100, 10, 500), week(10, 2, 100, 1)]).verdict, 'insufficient_data');
  // Enough earlier weeks, but the last one (paused) is below the floor.
  const paused = fatigueOf([week(20, 1, 100, 10), week(20, 1, 100, 10), week(20, 1, 100, 10), week(5, 2, 5, 0, 999)]);
  assert.equal(paused, { verdict: 'insufficient_data', best_week: null, ctr_change: null, cost_per_lead_change: null, frequency_change: null });
  assert.is(reasonOf(paused, 'en'), VERDICT_TEXT.insufficient_data.en);
});

test('spend but no lead in any active week: never fresh; insufficient data unless CTR and frequency show fatigue', () => {
  // CTR at its best, frequency flat, 100 spent every week and no lead: was `fresh` before.
  const atBest = fatigueOf([week(18, 1.0, 100, 0), week(19, 1.0, 100, 0), week(20, 1.0, 100, 0), week(20, 1.0, 100, 0)]);
  assert.is(atBest.verdict, 'insufficient_data');
  assert.is(atBest.cost_per_lead_change, null);
  assert.is(atBest.best_week, 3);
  assert.is(reasonOf(atBest, 'en'), 'Not enough data: the weeks judged have spend but no lead at all, so there is no cost per lead to compare.');
  // A small dip, nothing else moving (was `stable`): the cost signal cannot be read either.
  assert.is(fatigueOf([week(20, 1.0, 100, 0), week(20, 1.0, 100, 0), week(17, 1.0, 100, 0)]).verdict, 'insufficient_data');
  // CTR down 40% with frequency up 25%: tiring whatever the leads; with no cost signal it is not `fatigued`.
  const tiring = fatigueOf([week(20, 1.2, 100, 0), week(20, 1.2, 100, 0), week(12, 1.5, 100, 0)]);
  assert.is(tiring.verdict, 'fatiguing');
  assert.is(reasonOf(tiring, 'en'), VERDICT_TEXT.fatiguing.en);
  // A lead in a week that is not active does not count: the active weeks have none.
  assert.is(fatigueOf([week(20, 1, 100, 2, 500), week(20, 1, 100, 0), week(20, 1, 100, 0), week(20, 1, 100, 0)]).verdict, 'insufficient_data');
  // One lead in an earlier active week is enough to judge: the last week's spend with no lead is a rise.
  assert.is(fatigueOf([week(20, 1, 100, 1), week(20, 1, 100, 0), week(20, 1, 100, 0)]).verdict, 'stable');
  // Leads only in the last week: cost per lead fell from none; CTR at its best: fresh.
  assert.is(fatigueOf([week(20, 1, 100, 0), week(20, 1, 100, 0), week(20, 1, 100, 3)]).verdict, 'fresh');
});

test('a change exactly on a threshold reaches it ("at least"), though floating point lands a hair short', () => {
  const w = (impressions: number, clicks: number, reach: number, spend: number, leads: number): WeekPoint => ({ impressions, clicks, reach, spend, leads });
  // CTR 1% -> 0.9%, exactly 90% of the best week, cost per lead flat: fresh (0.009 / 0.01 - 1 is -0.10000000000000009).
  assert.is(fatigueOf([w(10_000, 100, 3000, 100, 10), w(10_000, 100, 3000, 100, 10), w(10_000, 90, 3000, 100, 10)]).verdict, 'fresh');
  // CTR -20% and frequency 3.0 -> 3.3, exactly +10% (3.3 / 3 - 1 is 0.09999999999999987): fatiguing.
  const frequency = fatigueOf([w(30_000, 300, 10_000, 100, 10), w(30_000, 300, 10_000, 100, 10), w(33_000, 264, 10_000, 110, 11)]);
  assert.equal([frequency.verdict, frequency.ctr_change, frequency.frequency_change], ['fatiguing', -0.2, 0.1]);
  // CTR -30% and cost per lead 10 -> 12, exactly +20% (12 / 10 - 1 is 0.19999999999999996): fatiguing.
  const cost = fatigueOf([w(10_000, 100, 3000, 100, 10), w(10_000, 100, 3000, 100, 10), w(10_000, 70, 3000, 120, 10)]);
  assert.equal([cost.verdict, cost.cost_per_lead_change], ['fatiguing', 0.2]);
  // CTR -35%, cost per lead +20%, frequency +10%, each exactly: fatigued.
  const worn = fatigueOf([w(60_000, 600, 20_000, 100, 10), w(60_000, 600, 20_000, 100, 10), w(66_000, 429, 20_000, 120, 10)]);
  assert.equal([worn.verdict, worn.ctr_change, worn.cost_per_lead_change, worn.frequency_change], ['fatigued', -0.35, 0.2, 0.1]);
});

test('momentum: last week against the average earlier week since the first active one', () => {
  const quiet: WeekPoint = { impressions: 0, clicks: 0, reach: 0, spend: 0, leads: 0 };
  assert.is(momentumOf([week(20, 1, 100, 10), week(20, 1, 100, 6), week(20, 1, 100, 12)]), 0.5);
  // Weeks before the group started do not drag the average down.
  assert.is(momentumOf([quiet, quiet, week(20, 1, 100, 4), week(20, 1, 100, 2)]), -0.5);
  assert.is(momentumOf([week(20, 1, 100, 0), week(20, 1, 100, 3)]), null);
  assert.is(momentumOf([quiet, week(20, 1, 100, 3)]), null);
});

test.run();
