// The EventStoreDB adapter's translations and subscription, without a server: what it hands the client
// (esdb-map.ts) and what it makes of what the client gives back, the subscription over a stand-in client.
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ANY, NO_STREAM, STREAM_EXISTS, WrongExpectedVersionError as EsdbWrongExpectedVersionError, type AllStreamResolvedEvent, type EventStoreDBClient } from '@eventstore/db-client';
import { esdbEventId, mapAppendError, toEsdbRevision, toEventData, toRecorded } from '../../src/eventstore/esdb-map.ts';
import { esdbSubscription } from '../../src/eventstore/esdb-subscribe.ts';
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { ConfigError } from '../../src/config.ts';
import { WrongExpectedVersionError, type EventMetadata, type RecordedEvent } from '../../src/eventstore/port.ts';

/** What the client yields for an event the adapter wrote (JSON data and metadata, parsed by the client). */
function recordedAs(written: ReturnType<typeof toEventData>, at = 7n, stream = 's-1'): AllStreamResolvedEvent {
  return {
    event: {
      streamId: stream, id: written.id, revision: 0n, type: written.type, data: written.data, metadata: written.metadata,
      isJson: true, created: new Date('2026-01-02T03:04:05.000Z'), position: { commit: at, prepare: at },
    },
  } as unknown as AllStreamResolvedEvent;
}

test('EventStoreDB map: expected revisions become the client\'s constants, a bigint stays itself', () => {
  assert.is(toEsdbRevision('any'), ANY);
  assert.is(toEsdbRevision('no_stream'), NO_STREAM);
  assert.is(toEsdbRevision('stream_exists'), STREAM_EXISTS);
  assert.is(toEsdbRevision(4n), 4n);
});

test('EventStoreDB map: the client\'s wrong expected version is the port\'s, with the actual revision or null', () => {
  const missing = mapAppendError(new EsdbWrongExpectedVersionError(undefined, { streamName: 's', expected: STREAM_EXISTS, current: NO_STREAM }), 's', 'stream_exists');
  assert.instance(missing, WrongExpectedVersionError);
  assert.equal([(missing as WrongExpectedVersionError).stream, (missing as WrongExpectedVersionError).expected, (missing as WrongExpectedVersionError).actual], ['s', 'stream_exists', null]);
  const behind = mapAppendError(new EsdbWrongExpectedVersionError(undefined, { streamName: 's', expected: 1n, current: 3n }), 's', 1n);
  assert.is((behind as WrongExpectedVersionError).actual, 3n);
  const other = new Error('unavailable');
  assert.is(mapAppendError(other, 's', 'any'), other);
});

test('EventStoreDB append: a conflict the client answers instead of throwing (throwOnAppendFailure=false) is the port\'s error, never a write', async () => {
  const store = new EsdbEventStore('esdb://localhost:2113?tls=false&throwOnAppendFailure=false');
  const answers = [{ success: false, nextExpectedRevision: 4n, position: undefined }, { success: false, nextExpectedRevision: -1n, position: undefined }];
  (store as unknown as { client: unknown }).client = { appendToStream: async () => answers.shift(), dispose: async () => {} };
  const exact = await store.append('s', [{ type: 'Thing', data: {} }], 2n, { organizationId: null }).catch((e: unknown) => e);
  assert.instance(exact, WrongExpectedVersionError);
  assert.equal([(exact as WrongExpectedVersionError).expected, (exact as WrongExpectedVersionError).actual], [2n, 4n]);
  const missing = await store.append('s', [{ type: 'Thing', data: {} }], 'stream_exists', { organizationId: null }).catch((e: unknown) => e);
  assert.instance(missing, WrongExpectedVersionError);
  assert.is((missing as WrongExpectedVersionError).actual, null);
  await store.close();
});

test('EventStoreDB map: every metadata field round-trips (idempotencyClaim, projected), the adapter\'s own are taken off', () => {
  const metadata: EventMetadata = {
    organizationId: 'org-1', correlationId: 'c', causationId: 'k', actor: 'key:1', idempotencyClaim: 'claim-1', projected: ['conversions'],
  };
  const written = toEventData({ type: 'Thing', data: { a: 1 }, id: 'conv-42' }, metadata);
  assert.is(written.id, esdbEventId('conv-42'));
  const e = toRecorded(recordedAs(written))!;
  assert.equal(e.metadata, metadata);
  assert.is(e.id, 'conv-42');
  assert.equal(e.data, { a: 1 });
  assert.equal(e.position, { commit: 7n, prepare: 7n });
  assert.is(e.createdAt, '2026-01-02T03:04:05.000Z');
  assert.equal(toRecorded(recordedAs(toEventData({ type: 'Thing', data: null }, { organizationId: null })))!.metadata, { organizationId: null });
});

test('EventStoreDB map: an id reads back as given (a UUID in capitals too); a generated id is a UUIDv7 the server keeps', () => {
  const upper = '0190A0B0-1234-7ABC-8DEF-0123456789AB';
  assert.is(toRecorded(recordedAs(toEventData({ type: 'Thing', data: {}, id: upper }, { organizationId: null })))!.id, upper);
  const lower = upper.toLowerCase();
  const written = toEventData({ type: 'Thing', data: {}, id: lower }, { organizationId: null });
  assert.equal(written.metadata, { organizationId: null });
  assert.is(toRecorded(recordedAs(written))!.id, lower);
  const generated = toEventData({ type: 'Thing', data: {} }, { organizationId: null });
  assert.match(generated.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(generated.metadata, { organizationId: null });
});

test('EventStoreDB map: a foreign event not written as JSON is read, not thrown on; system events are skipped', () => {
  const foreign = (data: string) => ({
    event: { streamId: 'other-app', id: '0190a0b0-0000-7000-8000-000000000001', revision: 0n, type: 'Blob', data: new Uint8Array(Buffer.from(data)), metadata: undefined, isJson: false, created: new Date(0), position: { commit: 9n, prepare: 9n } },
  }) as unknown as AllStreamResolvedEvent;
  assert.is(toRecorded(foreign(''))!.data, null);
  assert.equal(toRecorded(foreign('{"x":1}'))!.data, { x: 1 });
  assert.is(toRecorded(foreign('not json'))!.data, 'not json');
  assert.equal(toRecorded(foreign('not json'))!.metadata, { organizationId: null });
  const system = toEventData({ type: '$metadata', data: {} }, { organizationId: null });
  assert.is(toRecorded(recordedAs(system)), null);
  assert.is(toRecorded(recordedAs(toEventData({ type: 'Thing', data: {} }, { organizationId: null }), 1n, '$ce-x')), null);
});

/** A client whose subscriptions are streams the test writes to (and ends). */
function standInClient() {
  const opened: { from: unknown; stream: PassThrough & { unsubscribe(): Promise<void> } }[] = [];
  const client = {
    subscribeToAll(options: { fromPosition: unknown }) {
      const stream = Object.assign(new PassThrough({ objectMode: true }), { unsubscribe: async () => {} });
      opened.push({ from: options.fromPosition, stream });
      return stream;
    },
  } as unknown as EventStoreDBClient;
  return { client, opened };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check());
};

test('EventStoreDB subscription: a subscription the server ends without an error resumes after what was accepted', async () => {
  const { client, opened } = standInClient();
  const seen: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const subscription = esdbSubscription(client, { onBatch: async (b) => void seen.push(...b), onError: (e) => void errors.push(e) });
  const thing = (n: bigint) => recordedAs(toEventData({ type: 'Thing', data: { n: Number(n) } }, { organizationId: null }), n);
  opened[0].stream.write(thing(1n));
  await until(() => seen.length === 1);
  opened[0].stream.end();
  await until(() => opened.length === 2);
  assert.equal(opened[1].from, { commit: 1n, prepare: 1n });
  assert.is(errors.length, 1);
  opened[1].stream.write(thing(1n)); // the server may repeat its start: not handed over twice
  opened[1].stream.write(thing(2n));
  await until(() => seen.length === 2);
  await subscription.stop();
  assert.equal(seen.map((e) => e.position.commit), [1n, 2n]);
});
test('EventStoreDB subscription: what a dropped subscription still delivers is left to the one resumed in its place', async () => {
  const { client, opened } = standInClient();
  const seen: RecordedEvent[] = [];
  const subscription = esdbSubscription(client, { onBatch: async (b) => void seen.push(...b) });
  const thing = (n: bigint) => recordedAs(toEventData({ type: 'Thing', data: {} }, { organizationId: null }), n);
  opened[0].stream.write(thing(1n));
  await until(() => seen.length === 1);
  opened[0].stream.emit('error', new Error('connection reset'));
  await until(() => opened.length === 2);
  opened[0].stream.write(thing(3n)); // late, from the dropped one
  await new Promise((r) => setTimeout(r, 20));
  opened[1].stream.write(thing(2n));
  opened[1].stream.write(thing(3n));
  await until(() => seen.length === 3);
  await subscription.stop();
  assert.equal(seen.map((e) => e.position.commit), [1n, 2n, 3n]);
});

test('EventStoreDB connection string: the client\'s warnings and a refused option never show the password, and name EVENTSTORE_URL', async () => {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
  try {
    // tlsVerifyCert=false and an unknown key: the client warns with the whole connection string.
    await new EsdbEventStore('esdb://admin:s3cr%40t@localhost:2113?tls=false&tlsVerifyCert=false&colour=blue').close();
  } finally {
    console.warn = warn;
  }
  assert.is(warnings.length, 2);
  for (const w of warnings) {
    assert.not.match(w, 's3cr');
    assert.match(w, 'admin:***@localhost:2113');
  }
  let refused: unknown;
  try {
    new EsdbEventStore('esdb://admin:s3cret@localhost:2113?tls=maybe');
  } catch (error) {
    refused = error;
  }
  assert.instance(refused, ConfigError);
  assert.is((refused as Error).message, 'EVENTSTORE_URL="esdb://admin:***@localhost:2113?tls=maybe" is not valid: Unexpected "maybe" at position 39, expected true or false.');
});

test.run();
