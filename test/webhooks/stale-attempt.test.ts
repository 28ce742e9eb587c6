import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startHarness } from './support/harness.ts';
import { startReceiver } from './support/receiver.ts';
import { bodyOf, freshPhone } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';
import { WebhookSender, webhookSenderOptions } from '../../src/processes/webhooks/worker.ts';

const test = suite<{ db: TestDatabase }>('Webhooks: an attempt that started before a resume');
test.before(async (ctx) => { ctx.db = await freshDatabase('wh_stale'); });
test.after(async (ctx) => { await ctx.db.drop(); });

test('its failure, recorded after the resume, counts in the new run only: the resumed subscription is not paused again', async ({ db }) => {
  // Pings fail at once; the contact.created push is held until the test answers it.
  const held: ServerResponse[] = [];
  const receiver = await startReceiver((push, res) => (bodyOf(push).type === 'ping' ? res.writeHead(500).end() : held.push(res)));
  const api = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_PAUSE_AFTER: '2', WEBHOOK_RETRY_SCHEDULE: '1h' }, false);
  // Two senders, as two loops or processes: one holds the slow push while the other sends the pings.
  const slow = new WebhookSender(api.services, webhookSenderOptions(api.services, { batchSize: 1 }));
  const fast = new WebhookSender(api.services, webhookSenderOptions(api.services, { batchSize: 2 }));
  try {
    const { key } = await api.newOrganization();
    const hook = (await api.request('POST', '/webhooks', { key, body: { url: receiver.url('/in'), events: ['contact.created'] } })).body;
    assert.is((await api.request('POST', '/contacts', { key, body: { name: 'Stale Attempt', phone: freshPhone() } })).status, 201);
    await api.settle();
    const inFlight = slow.runOnce();
    await eventually('the held push', () => held.length === 1);
    for (let i = 0; i < 2; i++) assert.is((await api.request('POST', `/webhooks/${hook.id}/test`, { key })).status, 202);
    assert.is(await fast.runOnce(), 2);
    await api.settle();
    assert.is((await api.request('GET', `/webhooks/${hook.id}`, { key })).body.active, false, 'two failures in a row pause it');
    const resumed = await api.request('PATCH', `/webhooks/${hook.id}`, { key, body: { active: true } });
    assert.equal([resumed.body.active, resumed.body.consecutive_failures], [true, 0]);
    held[0].writeHead(500).end();
    assert.is(await inFlight, 1);
    await api.settle();
    const after = (await api.request('GET', `/webhooks/${hook.id}`, { key })).body;
    assert.equal([after.active, after.consecutive_failures, after.last_error], [true, 1, 'HTTP 500']);
  } finally {
    await slow.stop();
    await fast.stop();
    await api.stop();
    await receiver.close();
  }
});

test.run();
