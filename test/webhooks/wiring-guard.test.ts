import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startHarness } from './support/harness.ts';
import { WebhookSender, webhookSenderOptions } from '../../src/processes/webhooks/worker.ts';
import { scriptedLookup, startReceiver } from './support/receiver.ts';
import { ALL_TYPES } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';

const refusedUrls = [
  'http://hooks.example.com/in',
  'https://user:pass@hooks.example.com/in',
  'https://10.1.2.3/in', 'https://172.16.0.1/in', 'https://192.168.1.1/in', 'https://127.0.0.1/in', 'https://0.0.0.0/in',
  'https://169.254.169.254/latest/meta-data', 'https://100.64.0.1/in',
  'https://[::1]/in', 'https://[fe80::1]/in', 'https://[fc00::1]/in', 'https://[::ffff:127.0.0.1]/in',
  'https://localhost/in', 'https://api.localhost/in', 'https://metadata.google.internal/in', 'https://intranet/in',
  `https://hooks.example.com/${'a'.repeat(2000)}`,
];

const api = suite<{ server: TestServer }>('Webhooks: URL checks with WEBHOOK_ALLOW_PRIVATE off');
api.before(async (ctx) => { ctx.server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '0' }); });
api.after(async (ctx) => { await ctx.server.stop(); });

api('every refused address class is 400 validation_error on url, on create and on PATCH', async ({ server }) => {
  const org = await server.newOrganization();
  for (const url of refusedUrls) {
    const res = await server.request('POST', '/webhooks', { key: org.key, body: { url, events: ALL_TYPES } });
    assert.is(res.status, 400, url.slice(0, 60));
    assert.is(res.body.error.code, 'validation_error', url.slice(0, 60));
  }
  const ok = await server.request('POST', '/webhooks', { key: org.key, body: { url: 'https://hooks.example.com/in', events: ALL_TYPES } });
  assert.is(ok.status, 201);
  const patched = await server.request('PATCH', `/webhooks/${ok.body.id}`, { key: org.key, body: { url: 'https://127.0.0.1/in' } });
  assert.equal([patched.status, patched.body.error.code, patched.body.error.details.fields[0].field], [400, 'validation_error', 'url']);
  assert.equal((await server.request('GET', '/webhooks', { key: org.key })).body.data.map((w: { url: string }) => w.url), ['https://hooks.example.com/in']);
});

api.run();

const allowed = suite<{ server: TestServer }>('Webhooks: WEBHOOK_ALLOW_PRIVATE=1 opens loopback receivers only');
allowed.before(async (ctx) => { ctx.server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' }); });
allowed.after(async (ctx) => { await ctx.server.stop(); });

allowed('plain HTTP to a loopback receiver is accepted; plain HTTP elsewhere and private, link-local or metadata hosts are still 400', async ({ server }) => {
  const org = await server.newOrganization();
  const stillRefused = [
    'http://hooks.example.com/in', 'http://10.1.2.3/in', 'https://10.1.2.3/in', 'https://172.16.0.1/in', 'https://192.168.1.1/in',
    'https://169.254.169.254/latest/meta-data', 'https://100.64.0.1/in', 'https://[fc00::1]/in', 'https://printer.local/in',
    'https://user:pass@127.0.0.1/in',
  ];
  for (const url of stillRefused) {
    const res = await server.request('POST', '/webhooks', { key: org.key, body: { url, events: ALL_TYPES } });
    assert.equal([res.status, res.body.error?.code], [400, 'validation_error'], url);
  }
  for (const url of ['http://127.0.0.1:3000/in', 'http://localhost:3000/in', 'http://[::1]:3000/in', 'https://127.0.0.2/in', 'https://hooks.example.com/in']) {
    const res = await server.request('POST', '/webhooks', { key: org.key, body: { url, events: ALL_TYPES } });
    assert.is(res.status, 201, url);
  }
});

allowed.run();

const dns = suite<{ db: TestDatabase }>('Webhooks: a name that resolves to a private address, WEBHOOK_ALLOW_PRIVATE off');
dns.before(async (ctx) => { ctx.db = await freshDatabase('wh_dns'); });
dns.after(async (ctx) => { await ctx.db.drop(); });

dns('is accepted at subscription, then refused at send time: no connection, a failed attempt with status 0', async ({ db }) => {
  const receiver = await startReceiver((_push, res) => res.writeHead(200).end());
  // The resolver answers loopback, where the receiver listens: only the guard keeps the push from it.
  const { lookup, calls } = scriptedLookup(['127.0.0.1']);
  const harness = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '0' }, { lookup, allowPrivate: false });
  try {
    const org = await harness.newOrganization();
    const created = await harness.request('POST', '/webhooks', { key: org.key, body: { url: `https://hooks.example.com:${receiver.port}/in`, events: ALL_TYPES } });
    assert.is(created.status, 201);
    await harness.request('POST', `/webhooks/${created.body.id}/test`, { key: org.key });
    const attempts = await eventually('a recorded attempt', async () => {
      await harness.settle();
      const res = await harness.request('GET', `/webhooks/${created.body.id}/deliveries`, { key: org.key });
      return res.body.data.length > 0 && res.body.data;
    });
    assert.equal([attempts[0].status, attempts[0].success, attempts[0].error], [0, false, 'refused: hooks.example.com resolves to a loopback address']);
    assert.ok(calls.includes('hooks.example.com'));
    assert.is(receiver.connections(), 0);
  } finally {
    await harness.stop();
    await receiver.close();
  }
});

dns.run();

const batch = suite<{ db: TestDatabase }>('Webhooks: the sender resolves a host name once a batch');
batch.before(async (ctx) => { ctx.db = await freshDatabase('wh_batch_dns'); });
batch.after(async (ctx) => { await ctx.db.drop(); });

batch('a batch resolves each host once, every push to it pinned to that answer; the next batch resolves again', async ({ db }) => {
  const receiver = await startReceiver((_push, res) => res.writeHead(200).end());
  const { lookup, calls } = scriptedLookup(['127.0.0.1']);
  // The API and projectors only: the test runs the sender's claims itself.
  const harness = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '1' }, false);
  const sender = new WebhookSender(harness.services, webhookSenderOptions(harness.services, { lookup, allowPrivate: true }));
  try {
    const org = await harness.newOrganization();
    for (const path of ['/a', '/b']) {
      const created = await harness.request('POST', '/webhooks', { key: org.key, body: { url: `http://hooks.localhost:${receiver.port}${path}`, events: ['contact.created'] } });
      assert.is(created.status, 201);
    }
    const newContacts = async (n: number) => {
      for (let i = 0; i < n; i++) assert.is((await harness.request('POST', '/contacts', { key: org.key, body: { name: `Batch ${i}`, email: `batch-${randomUUID()}@example.com` } })).status, 201);
      await harness.settle();
    };
    await newContacts(3);
    assert.is(await sender.runOnce(), 6);
    assert.equal(calls, ['hooks.localhost']);
    assert.is(receiver.received.length, 6);
    await newContacts(1);
    assert.is(await sender.runOnce(), 2);
    assert.equal(calls, ['hooks.localhost', 'hooks.localhost']);
    assert.is(receiver.received.length, 8);
  } finally {
    await sender.stop();
    await harness.stop();
    await receiver.close();
  }
});

batch.run();
