// Contract: subscribe to all from a position, catching up and then following live, in order, once each.
import * as assert from 'uvu/assert';
import type { EventStore, Position, RecordedEvent, Subscription } from '../../src/eventstore/port.ts';
import { META, assertAscending, events, streamName, type MakeSuite } from './contract.ts';

/** Collects a subscription's events of some streams; `until` resolves once `count` of them arrived. */
export function collect(store: EventStore, after: Position, streams: (s: string) => boolean, options: { batchSize?: number; failFirst?: number } = {}) {
  const seen: RecordedEvent[] = [];
  const batches: number[] = [];
  let failures = options.failFirst ?? 0;
  let waiting: { count: number; resolve: () => void } | null = null;
  const subscription: Subscription = store.subscribeToAll({
    after,
    batchSize: options.batchSize,
    onBatch: async (batch) => {
      if (failures > 0) {
        failures--;
        throw new Error('consumer refuses this batch once');
      }
      batches.push(batch.length);
      seen.push(...batch.filter((e) => streams(e.stream)));
      if (waiting && seen.length >= waiting.count) waiting.resolve();
    },
  });
  return {
    seen,
    batches,
    subscription,
    /** Resolves when `count` events arrived; fails after a generous deadline rather than hanging. */
    until(count: number, deadlineMs = 20_000): Promise<void> {
      if (seen.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          // Stop reading so that a failed test does not keep the process alive.
          void subscription.stop();
          reject(new Error(`only ${seen.length} of ${count} events arrived`));
        }, deadlineMs);
        waiting = { count, resolve: () => { clearTimeout(timer); resolve(); } };
      });
    },
  };
}

export function subscriptions(make: MakeSuite): void {
  const test = make('subscribes to all: catch-up, then live');

  test('catches up on past events, then follows new ones, once each and in order', async ({ store }) => {
    const from = await store.headPosition();
    const prefix = streamName('sub');
    const mine = (s: string) => s.startsWith(prefix);
    for (let i = 0; i < 5; i++) await store.append(`${prefix}-${i % 2}`, events(3), 'any', META);
    const c = collect(store, from, mine, { batchSize: 4 });
    await c.until(15);
    for (let i = 0; i < 5; i++) await store.append(`${prefix}-${i % 3}`, events(2), 'any', META);
    await c.until(25);
    await c.subscription.stop();
    assert.is(c.seen.length, 25);
    assert.is(new Set(c.seen.map((e) => e.id)).size, 25);
    assertAscending(c.seen);
    assert.ok(c.batches.every((n) => n <= 4), 'batches respect batchSize');
  });

  test('starts strictly after the position given', async ({ store }) => {
    const s = streamName('sub_from');
    await store.append(s, events(3), 'no_stream', META);
    const middle = await store.append(s, events(2), 2n, META);
    await store.append(s, events(1, 'Late'), 4n, META);
    const c = collect(store, middle.position, (x) => x === s);
    await c.until(1);
    await c.subscription.stop();
    assert.equal(c.seen.map((e) => e.revision), [5n]);
  });

  test('filters by event type and still delivers in order', async ({ store }) => {
    const from = await store.headPosition();
    const s = streamName('sub_types');
    await store.append(s, [...events(2, 'Keep'), ...events(2, 'Drop'), ...events(1, 'Keep')], 'no_stream', META);
    const seen: RecordedEvent[] = [];
    let done!: () => void;
    const arrived = new Promise<void>((resolve) => (done = resolve));
    const subscription = store.subscribeToAll({
      after: from,
      types: ['Keep'],
      onBatch: async (batch) => {
        seen.push(...batch.filter((e) => e.stream === s));
        if (seen.length >= 3) done();
      },
    });
    await arrived;
    await subscription.stop();
    assert.equal(seen.map((e) => e.revision), [0n, 1n, 4n]);
  });

  test('a batch the consumer refuses is offered again, never skipped', async ({ store }) => {
    const from = await store.headPosition();
    const s = streamName('sub_retry');
    await store.append(s, events(4), 'no_stream', META);
    const c = collect(store, from, (x) => x === s, { failFirst: 2 });
    await c.until(4);
    await c.subscription.stop();
    assert.equal(c.seen.map((e) => e.revision), [0n, 1n, 2n, 3n]);
  });

  test('metadata reaches subscribers unchanged', async ({ store }) => {
    const from = await store.headPosition();
    const s = streamName('sub_meta');
    await store.append(s, [{ type: 'M', data: { ok: true } }], 'no_stream', META);
    const c = collect(store, from, (x) => x === s);
    await c.until(1);
    await c.subscription.stop();
    assert.equal(c.seen[0].metadata, META);
    assert.equal(c.seen[0].data, { ok: true });
  });
}
