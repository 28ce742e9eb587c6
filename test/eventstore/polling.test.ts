// The polling subscription over a recorded read function: where each read starts, and what reaches the consumer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pollingSubscription } from '../../src/eventstore/polling.ts';
import { START, type Position, type RecordedEvent } from '../../src/eventstore/port.ts';

function event(n: number, type: string): RecordedEvent {
  return { id: `e${n}`, type, stream: 's', revision: BigInt(n), position: { commit: 1n, prepare: BigInt(n) }, data: null, metadata: { organizationId: null }, createdAt: '' };
}

/** A store of the given events; every read is recorded with the position it starts after. */
function recordedReads(log: RecordedEvent[]) {
  const starts: bigint[] = [];
  let wakeUp: () => void = () => {};
  const read = async (after: Position, maxCount: number) => {
    starts.push(after.prepare);
    return log.filter((e) => e.position.prepare > after.prepare).slice(0, maxCount);
  };
  const source = { onWake: (callback: () => void) => ((wakeUp = callback), () => {}) };
  return { read, source, starts, wake: () => wakeUp() };
}

test('Subscription filtered by type: skipped events are read once, the next read starts after them', async () => {
  const log = [event(1, 'Keep'), event(2, 'Drop'), event(3, 'Drop')];
  const store = recordedReads(log);
  const handed: RecordedEvent[][] = [];
  const subscription = pollingSubscription(store.read, store.source, { types: ['Keep'], onBatch: async (b) => void handed.push(b) }, 60_000);
  await new Promise((r) => setTimeout(r, 30));
  log.push(event(4, 'Drop'), event(5, 'Keep'));
  store.wake();
  await new Promise((r) => setTimeout(r, 30));
  await subscription.stop();
  assert.equal(handed.map((b) => b.map((e) => e.id)), [['e1'], ['e5']]);
  // After the first batch (1-3) reads start at 3, never again at 1 (the last event handed over), then at 5.
  const distinct = store.starts.filter((p, i) => i === 0 || p !== store.starts[i - 1]);
  assert.equal(distinct, [START.prepare, 3n, 5n]);
});

test('Subscription filtered by type: a batch with nothing wanted is not handed over', async () => {
  const store = recordedReads([event(1, 'Drop'), event(2, 'Drop')]);
  const handed: RecordedEvent[][] = [];
  const subscription = pollingSubscription(store.read, store.source, { types: ['Keep'], onBatch: async (b) => void handed.push(b) }, 60_000);
  await new Promise((r) => setTimeout(r, 30));
  await subscription.stop();
  assert.equal(handed, []);
  assert.ok(store.starts.slice(1).every((p) => p === 2n));
});

test.run();
