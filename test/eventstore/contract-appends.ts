// Contract: appends with every expected-revision form, stream reads, metadata, event ids, appendMany.
import * as assert from 'uvu/assert';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { META, events, expectDuplicate, failure, readAllOf, rejected, streamName, type MakeSuite } from './contract.ts';

export function appendsAndStreams(make: MakeSuite): void {
  expectedRevisions(make('appends with an expected revision'));
  streamReads(make('reads a stream forwards and backwards'));
  envelope(make('keeps the envelope and refuses a known event id'));
}

function expectedRevisions(test: ReturnType<MakeSuite>): void {
  test('no_stream creates a stream at revisions 0..n-1, and refuses an existing one', async ({ store }) => {
    const s = streamName('nostream');
    const r = await store.append(s, events(3), 'no_stream', META);
    assert.is(r.nextExpectedRevision, 2n);
    assert.equal((await store.readStream(s)).map((e) => e.revision), [0n, 1n, 2n]);
    const error = await rejected(store, s, 'no_stream');
    assert.is(error.stream, s);
    assert.is(error.actual, 2n);
  });

  test('stream_exists refuses a missing stream and appends to an existing one', async ({ store }) => {
    const s = streamName('exists');
    const error = await rejected(store, s, 'stream_exists');
    assert.is(error.actual, null);
    await store.append(s, events(1), 'no_stream', META);
    const r = await store.append(s, events(2), 'stream_exists', META);
    assert.is(r.nextExpectedRevision, 2n);
  });

  test('an exact revision appends only when it is the last one', async ({ store }) => {
    const s = streamName('exact');
    assert.is((await rejected(store, s, 0n)).actual, null);
    await store.append(s, events(2), 'no_stream', META);
    const r = await store.append(s, events(1), 1n, META);
    assert.is(r.nextExpectedRevision, 2n);
    const stale = await rejected(store, s, 1n);
    assert.is(stale.expected, 1n);
    assert.is(stale.actual, 2n);
    assert.is((await store.readStream(s)).length, 3);
  });

  test('any creates a stream and appends to it', async ({ store }) => {
    const s = streamName('any');
    assert.is((await store.append(s, events(2), 'any', META)).nextExpectedRevision, 1n);
    assert.is((await store.append(s, events(2), 'any', META)).nextExpectedRevision, 3n);
    assert.equal((await store.readStream(s)).map((e) => e.revision), [0n, 1n, 2n, 3n]);
  });

  test('of concurrent appends with the same revision exactly one wins', async ({ store }) => {
    const s = streamName('race');
    await store.append(s, events(1), 'no_stream', META);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => store.append(s, events(1), 0n, META)));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.instance(r.reason, WrongExpectedVersionError);
    assert.is((await store.readStream(s)).length, 2);
  });

  test('the returned position is the last event\'s, and the head once nothing else was written', async ({ store, target }) => {
    const s = streamName('position');
    const r = await store.append(s, events(3), 'no_stream', META);
    const [last] = await store.readStream(s, { direction: 'backwards', maxCount: 1 });
    assert.equal(last.position, r.position);
    if (target.name === 'postgres') assert.equal(await store.headPosition(), r.position);
  });
}

function streamReads(test: ReturnType<MakeSuite>): void {
  test('forwards from a revision, with a maximum count', async ({ store }) => {
    const s = streamName('fwd');
    await store.append(s, events(10), 'no_stream', META);
    const all = await store.readStream(s);
    assert.equal(all.map((e) => (e.data as { n: number }).n), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const some = await store.readStream(s, { fromRevision: 4n, maxCount: 3 });
    assert.equal(some.map((e) => e.revision), [4n, 5n, 6n]);
  });

  test('backwards from the end or from a revision', async ({ store }) => {
    const s = streamName('bwd');
    await store.append(s, events(5), 'no_stream', META);
    assert.equal((await store.readStream(s, { direction: 'backwards' })).map((e) => e.revision), [4n, 3n, 2n, 1n, 0n]);
    const some = await store.readStream(s, { direction: 'backwards', fromRevision: 2n, maxCount: 2 });
    assert.equal(some.map((e) => e.revision), [2n, 1n]);
  });

  test('a stream that does not exist reads as empty', async ({ store }) => {
    assert.equal(await store.readStream(streamName('missing')), []);
    assert.equal(await store.readStream(streamName('missing'), { direction: 'backwards' }), []);
  });

  test('readAll returns only events strictly after a position, in order, by type', async ({ store }) => {
    const from = await store.headPosition();
    const a = streamName('all_a');
    const b = streamName('all_b');
    await store.append(a, events(2, 'A'), 'no_stream', META);
    const middle = await store.append(b, events(2, 'B'), 'no_stream', META);
    await store.append(a, events(1, 'C'), 1n, META);
    const all = await readAllOf(store, from, [a, b]);
    assert.equal(all.map((e) => `${e.stream === a ? 'a' : 'b'}${e.type}${e.revision}`), ['aA0', 'aA1', 'bB0', 'bB1', 'aC2']);
    const later = await readAllOf(store, middle.position, [a, b]);
    assert.equal(later.map((e) => e.type), ['C']);
    const onlyB = (await store.readAll({ after: from, types: ['B'] })).filter((e) => e.stream === b);
    assert.equal(onlyB.map((e) => e.revision), [0n, 1n]);
    assert.is((await store.readAll({ after: from, maxCount: 2 })).length, 2);
  });

  test('listStreams finds streams by prefix with their last revision', async ({ store }) => {
    const prefix = streamName('list');
    await store.append(`${prefix}-x`, events(3), 'no_stream', META);
    await store.append(`${prefix}-y`, events(1), 'no_stream', META);
    const listed = await store.listStreams({ prefix });
    assert.equal(listed, [{ stream: `${prefix}-x`, revision: 2n }, { stream: `${prefix}-y`, revision: 0n }]);
  });
}

function envelope(test: ReturnType<MakeSuite>): void {
  test('metadata, data, id, type and created time round-trip', async ({ store }) => {
    const s = streamName('meta');
    const id = crypto.randomUUID();
    const data = { name: 'Zoë Ω', nested: { list: [1, 'two', null], flag: true }, at: '2024-05-01T10:00:00.000Z' };
    const before = Date.now();
    await store.append(s, [{ id, type: 'ContactCreated', data }], 'no_stream', META);
    const [e] = await store.readStream(s);
    assert.is(e.id, id);
    assert.is(e.type, 'ContactCreated');
    assert.is(e.stream, s);
    assert.equal(e.data, data);
    assert.equal(e.metadata, META);
    assert.ok(Math.abs(Date.parse(e.createdAt) - before) < 60_000, 'created time is now');
    assert.is(new Date(e.createdAt).toISOString(), e.createdAt);
    const minimal = streamName('meta_min');
    await store.append(minimal, events(1), 'no_stream', { organizationId: null });
    assert.equal((await store.readStream(minimal))[0].metadata, { organizationId: null });
  });

  test('ids are unique; an id the store holds is refused with a typed error', async ({ store, target }) => {
    const s = streamName('dup');
    const id = crypto.randomUUID();
    await store.append(s, [{ id, type: 'Once', data: {} }], 'no_stream', META);
    const generated = await store.readStream(s);
    assert.is(generated[0].id, id);
    if (target.globalEventIds) {
      const error = await expectDuplicate(store.append(streamName('dup2'), [{ id, type: 'Twice', data: {} }], 'any', META));
      assert.is(error.eventId, id);
      await expectDuplicate(store.append(s, [{ id, type: 'Twice', data: {} }], 0n, META));
    } else {
      // EventStoreDB: the same append retried is acknowledged without a second copy.
      await store.append(s, [{ id, type: 'Once', data: {} }], 'no_stream', META).catch(() => {});
    }
    assert.is((await store.readStream(s)).length, 1);
  });

  test('events without an id get distinct ids', async ({ store }) => {
    const s = streamName('ids');
    await store.append(s, events(20), 'no_stream', META);
    assert.is(new Set((await store.readStream(s)).map((e) => e.id)).size, 20);
  });

  test('appendMany writes several streams; atomically where the adapter says so', async ({ store, target }) => {
    const a = streamName('many_a');
    const b = streamName('many_b');
    const r = await store.appendMany([
      { stream: a, events: events(1), expectedRevision: 'no_stream' },
      { stream: b, events: events(2), expectedRevision: 'no_stream' },
    ], META);
    assert.is(r.nextExpectedRevision, 1n);
    const c = streamName('many_c');
    const error = await failure(store.appendMany([
      { stream: c, events: events(1), expectedRevision: 'no_stream' },
      { stream: a, events: events(1), expectedRevision: 'no_stream' },
    ], META));
    assert.instance(error, WrongExpectedVersionError);
    assert.is((await store.readStream(c)).length, target.atomicAppendMany ? 0 : 1);
  });
}
