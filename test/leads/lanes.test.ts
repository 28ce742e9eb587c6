// The bulk imports' lanes (commands/lead/lanes.ts): unrelated leads overlap, one person's leads keep their
// order, no more than the width run at once, and a failure stops what comes after it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inLanes, laneKeys } from '../../commands/lead/lanes.ts';
import type { PlatformLead } from '../../src/platform/leads.ts';

const test = suite('Bulk lead imports: lanes by person');

interface Item { id: number; keys: string[]; ms: number }

/** Runs the items, each sleeping its ms; the order they ended in and the most running at once. */
async function run(items: Item[], width: number, failAt?: number) {
  const ended: number[] = [];
  const started: number[] = [];
  let now = 0;
  let most = 0;
  const outcome = await inLanes(items, width, (i) => i.keys, async (item) => {
    started.push(item.id);
    most = Math.max(most, ++now);
    await new Promise((resolve) => setTimeout(resolve, item.ms));
    now--;
    if (item.id === failAt) throw new Error(`item ${item.id} failed`);
    ended.push(item.id);
  }).then(() => null, (error: Error) => error);
  return { ended, started, most, outcome };
}

test('items sharing a key end in the order given; unrelated ones overtake them', async () => {
  const items: Item[] = [
    { id: 1, keys: ['a'], ms: 60 },
    { id: 2, keys: ['b'], ms: 5 },
    { id: 3, keys: ['a', 'c'], ms: 5 }, // after 1 (a)
    { id: 4, keys: ['c'], ms: 5 }, // after 3 (c), so after 1 too
    { id: 5, keys: ['d'], ms: 5 },
  ];
  const { ended, outcome } = await run(items, 4);
  assert.is(outcome, null);
  assert.equal(ended.length, 5);
  assert.ok(ended.indexOf(2) < ended.indexOf(1), `an unrelated item waited: ${ended}`);
  assert.ok(ended.indexOf(1) < ended.indexOf(3) && ended.indexOf(3) < ended.indexOf(4), `one lane out of order: ${ended}`);
});

test('no more than the width run at once', async () => {
  const items = Array.from({ length: 20 }, (_, id) => ({ id, keys: [`k${id}`], ms: 3 }));
  const { ended, most } = await run(items, 3);
  assert.is(ended.length, 20);
  assert.is(most, 3);
});

test('a failure: nothing starts after it, what was running ends, then the error is thrown', async () => {
  const items = Array.from({ length: 30 }, (_, id) => ({ id, keys: [`k${id}`], ms: id === 2 ? 1 : 20 }));
  const { ended, started, outcome } = await run(items, 4, 2);
  assert.instance(outcome, Error);
  assert.is(outcome!.message, 'item 2 failed');
  assert.ok(started.length < 10, `${started.length} items started after the failure`);
  // Every item started other than the failed one ended before inLanes returned.
  assert.equal([...ended].sort((a, b) => a - b), started.filter((id) => id !== 2).sort((a, b) => a - b));
});

test('a failure of the items themselves (the file) waits for what runs, then is thrown', async () => {
  let ended = 0;
  async function* items() {
    yield 1;
    yield 2;
    throw new Error('cut short');
  }
  const error = await inLanes(items(), 4, (i) => [`k${i}`], async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    ended++;
  }).catch((e: Error) => e);
  assert.is((error as Error).message, 'cut short');
  assert.is(ended, 2);
});

test("a lead's keys: its platform id, and its phone and e-mail as the contacts match them", () => {
  const lead = (phone: string | undefined, email: string | undefined) =>
    ({ platformLeadId: '77', phone, email }) as unknown as PlatformLead;
  const a = laneKeys(lead('600 100 200', ' Ann@Example.com '), '48');
  const b = laneKeys(lead('+48600100200', 'ann@example.com'), '48');
  assert.is(a.length, 3);
  assert.equal(a, b, 'the same person written two ways shares its lanes');
  assert.equal(laneKeys(lead(undefined, undefined), '48'), ['lead:77']);
  assert.is(laneKeys(lead('not a phone', 'ann@example.com'), '48').length, 2, 'an unreadable phone is no key');
});

test.run();
