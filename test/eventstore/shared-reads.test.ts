// Reads shared by a process's subscriptions: one query for the readers of the moment, each given its own slice.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SharedReads } from '../../src/eventstore/shared-reads.ts';
import { START, type Position, type ReadAllOptions, type RecordedEvent } from '../../src/eventstore/port.ts';

const at = (n: number): Position => ({ commit: 1n, prepare: BigInt(n) });
const log: RecordedEvent[] = Array.from({ length: 10 }, (_, i) => ({
  id: `e${i + 1}`, type: i % 2 ? 'B' : 'A', stream: 's', revision: BigInt(i), position: at(i + 1), data: null, metadata: { organizationId: null }, createdAt: '',
}));

function recorded() {
  const queries: ReadAllOptions[] = [];
  const readAll = async (options: ReadAllOptions) => {
    queries.push(options);
    return log.filter((e) => e.position.prepare > (options.after ?? START).prepare).slice(0, options.maxCount);
  };
  return { queries, shared: new SharedReads(readAll) };
}

const ids = (events: RecordedEvent[]) => events.map((e) => e.id);

test('Shared reads: readers asking together get one query from the lowest position, each its own slice', async () => {
  const { queries, shared } = recorded();
  const [low, high, done] = await Promise.all([shared.read(at(2), 3, ['A']), shared.read(at(6), 100, ['B']), shared.read(at(10), 100, ['A'])]);
  assert.equal(ids(low), ['e3', 'e4', 'e5']);
  assert.equal(ids(high), ['e7', 'e8', 'e9', 'e10']);
  assert.equal(ids(done), []);
  assert.is(queries.length, 1);
  assert.equal(queries[0].after, at(2));
  assert.is(queries[0].maxCount, 100);
  assert.equal([...queries[0].payloadTypes!].sort(), ['A', 'B']);
});

test('Shared reads: a reader past where a full query stopped reads alone; one wanting every payload gets them', async () => {
  const { queries, shared } = recorded();
  const [low, high] = await Promise.all([shared.read(START, 2, ['A']), shared.read(at(5), 2)]);
  assert.equal(ids(low), ['e1', 'e2']);
  assert.equal(ids(high), ['e6', 'e7']);
  assert.is(queries.length, 2);
  assert.is(queries[0].payloadTypes, undefined);
  assert.equal(queries[1].after, at(5));
});

test('Shared reads: a reader asking while a query runs is answered by the next one', async () => {
  const { queries, shared } = recorded();
  const first = shared.read(at(8), 10, ['A']);
  await new Promise((r) => setImmediate(r));
  const second = shared.read(at(9), 10, ['A']);
  assert.equal(ids(await first), ['e9', 'e10']);
  assert.equal(ids(await second), ['e10']);
  assert.is(queries.length, 2);
});

test.run();
