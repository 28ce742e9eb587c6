import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventIndexFrom, sendConversionBatch } from '../../src/platform/conversions.ts';
import { nowSeconds, sandboxContext, serverEvent, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Platform conversions: a batch sent to the sandbox dataset');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());
test.before.each(({ sandbox }) => sandbox.reset());

test('an accepted batch reports events_received and the sandbox records token, test code and events', async ({ sandbox, cfg }) => {
  const events = [serverEvent(1), serverEvent(2), serverEvent(3)];
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 'tok-1', testEventCode: 'TEST123', events });
  assert.is(result.kind, 'accepted');
  if (result.kind !== 'accepted') return;
  assert.is(result.eventsReceived, 3);
  assert.ok(result.fbtraceId.length > 0);
  const got = sandbox.received('ds1');
  assert.is(got.batches.length, 1);
  assert.is(got.batches[0].accessToken, 'tok-1');
  assert.is(got.batches[0].testEventCode, 'TEST123');
  assert.equal(got.events.map((e) => e.event_id), ['ev-1', 'ev-2', 'ev-3']);
  assert.is(got.acceptedEvents, 3);
});

test('sending the same event ids again is counted as duplicates per dataset', async ({ sandbox, cfg }) => {
  await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(1), serverEvent(2)] });
  await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(2), serverEvent(3)] });
  await sendConversionBatch(cfg, { datasetId: 'ds2', accessToken: 't', events: [serverEvent(1)] });
  const got = sandbox.received('ds1');
  assert.is(got.acceptedEvents, 4);
  assert.is(got.uniqueEventIds, 3);
  assert.is(got.duplicateEvents, 1);
  assert.is(sandbox.received('ds2').duplicateEvents, 0);
});

test('a refusing dataset gives a permanent failure with the platform code and message', async ({ sandbox, cfg }) => {
  sandbox.setDatasetBehaviour('ds1', { mode: 'refuse' });
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(1)] });
  assert.equal(result, { kind: 'permanent', status: 400, message: 'Invalid parameter', code: 100 });
  assert.is(sandbox.received('ds1').acceptedEvents, 0);
});

test('a refusal with a permission code is permanent too', async ({ sandbox, cfg }) => {
  sandbox.setDatasetBehaviour('ds1', { mode: 'refuse', refuseCode: 200, refuseMessage: '(#200) Permissions error' });
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(1)] });
  assert.is(result.kind, 'permanent');
  assert.is(result.kind === 'permanent' && result.code, 200);
});

test('a bad token is a permanent OAuth failure (190)', async ({ sandbox, cfg }) => {
  const bad = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 'bad', events: [serverEvent(1)] });
  assert.is(bad.kind, 'permanent');
  assert.is(bad.kind === 'permanent' && bad.code, 190);
  sandbox.setDatasetBehaviour('ds1', { mode: 'accept', validTokens: ['right'] });
  const wrong = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 'other', events: [serverEvent(1)] });
  assert.is(wrong.kind === 'permanent' && wrong.code, 190);
  const right = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 'right', events: [serverEvent(1)] });
  assert.is(right.kind, 'accepted');
});

test('a flaky dataset fails transiently N times, then accepts', async ({ sandbox, cfg }) => {
  sandbox.setDatasetBehaviour('ds1', { mode: 'flaky', failures: 2 });
  const batch = { datasetId: 'ds1', accessToken: 't', events: [serverEvent(1)] };
  const first = await sendConversionBatch(cfg, batch);
  assert.equal(first, { kind: 'transient', status: 500, message: 'An unexpected error has occurred. Please retry your request later.', code: 2 });
  assert.is((await sendConversionBatch(cfg, batch)).kind, 'transient');
  assert.is((await sendConversionBatch(cfg, batch)).kind, 'accepted');
  const got = sandbox.received('ds1');
  assert.is(got.requests, 3);
  assert.equal(got.batches.map((b) => b.status), [500, 500, 200]);
});

test('an event older than 7 days refuses the whole batch and names its index', async ({ sandbox, cfg }) => {
  const events = [serverEvent(0), serverEvent(1), serverEvent(2, { event_time: nowSeconds() - 8 * 86_400 }), serverEvent(3)];
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events });
  assert.is(result.kind, 'permanent');
  if (result.kind !== 'permanent') return;
  assert.is(result.code, 100);
  assert.is(result.eventIndex, 2);
  assert.is(sandbox.received('ds1').acceptedEvents, 0);
});

test('an event missing required data is refused with its index', async ({ cfg }) => {
  const events = [serverEvent(0), { ...serverEvent(1), user_data: {} }];
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events });
  assert.is(result.kind === 'permanent' && result.eventIndex, 1);
  const unhashed = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(0, { user_data: { em: ['plain@example.com'] } })] });
  assert.is(unhashed.kind === 'permanent' && unhashed.eventIndex, 0);
});

test('a batch over 1000 events is refused before sending', async ({ sandbox, cfg }) => {
  const events = Array.from({ length: 1001 }, (_, i) => serverEvent(i));
  const result = await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events });
  assert.is(result.kind, 'permanent');
  assert.is(sandbox.received('ds1').requests, 0);
});

test('the sandbox takes a form body with data as a JSON string, like the platform', async ({ sandbox }) => {
  const form = new URLSearchParams({ access_token: 't', test_event_code: 'T1', data: JSON.stringify([serverEvent(7)]) });
  const res = await fetch(`${sandbox.url}/v19.0/ds9/events`, { method: 'POST', body: form });
  const body = (await res.json()) as { events_received: number; messages: unknown[] };
  assert.is(res.status, 200);
  assert.is(body.events_received, 1);
  assert.equal(body.messages, []);
  assert.is(sandbox.received('ds9').batches[0].testEventCode, 'T1');
});

test('no answer (closed port, time-out) is transient with status 0', async ({ cfg }) => {
  const silent: Server = createServer(() => {
    // never answers
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  const timedOut = await sendConversionBatch({ ...cfg, apiUrl: `http://127.0.0.1:${port}`, timeoutMs: 150 }, { datasetId: 'd', accessToken: 't', events: [serverEvent(1)] });
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  assert.equal(timedOut.kind === 'transient' && timedOut.status, 0);
  const refused = await sendConversionBatch({ ...cfg, apiUrl: `http://127.0.0.1:${port}` }, { datasetId: 'd', accessToken: 't', events: [serverEvent(1)] });
  assert.equal(refused.kind === 'transient' && refused.status, 0);
});

test('event indexes are read from the ways the platform names them', () => {
  assert.is(eventIndexFrom('Invalid parameter: data[12].event_time is too old'), 12);
  assert.is(eventIndexFrom(undefined, 'The timestamp for event 4 is more than 7 days in the past.'), 4);
  assert.is(eventIndexFrom('Invalid event at index 7'), 7);
  assert.is(eventIndexFrom('Invalid parameter'), undefined);
});

test.run();

const capped = suite<SandboxContext>('Sandbox recording: a cap on stored events, counts kept past it');
capped.before((ctx) => sandboxContext(ctx, { maxRecordedEvents: 5 }));
capped.after(({ sandbox }) => sandbox.stop());

capped('events past the cap are counted but not stored', async ({ sandbox, cfg }) => {
  await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(1), serverEvent(2), serverEvent(3)] });
  await sendConversionBatch(cfg, { datasetId: 'ds1', accessToken: 't', events: [serverEvent(4), serverEvent(5), serverEvent(1)] });
  const got = sandbox.received('ds1');
  assert.is(got.events.length, 3);
  assert.is(got.truncated, true);
  assert.is(got.acceptedEvents, 6);
  assert.is(got.uniqueEventIds, 5);
  assert.is(got.duplicateEvents, 1);
  assert.equal(got.batches.map((b) => b.eventCount), [3, 3]);
});

capped.run();
