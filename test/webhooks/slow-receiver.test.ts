// A receiver that takes its time (under the time-out) must not hold back the pushes of other subscriptions,
// of this organisation or another: the sender's loops do not wait on it before they claim more.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, newContact, pushesTo, subscribe } from './support/hooks.ts';

const test = suite<{ server: TestServer; receiver: Receiver; held: ServerResponse[] }>('Webhooks: a slow receiver');
test.before(async (ctx) => {
  // A time-out long enough that the slow receiver never reaches it within the test.
  ctx.server = await startTestServer({ WEBHOOK_TIMEOUT_MS: '30000' });
  ctx.held = [];
  // /slow answers only when the test lets it; every other path at once.
  ctx.receiver = await startReceiver((push, res) => {
    if (push.path === '/slow') ctx.held.push(res);
    else res.writeHead(200).end();
  });
});
test.after(async (ctx) => {
  for (const res of ctx.held) res.writeHead(200).end();
  await ctx.server.stop();
  await ctx.receiver.close();
});

test('pushes to a receiver that is still answering do not hold back another organisation\'s pushes', async ({ server, receiver }) => {
  const slowOrg = await server.newOrganization();
  const otherOrg = await server.newOrganization();
  await subscribe(server, slowOrg, receiver.url('/slow'), ['contact.created']);
  await subscribe(server, otherOrg, receiver.url('/fast'), ['contact.created']);
  // Events of the slow subscription one after another, each in a claim of its own while the earlier ones wait.
  for (let i = 1; i <= 8; i++) {
    await newContact(server, slowOrg);
    await eventually('the slow push to arrive', () => pushesTo(receiver.received, '/slow').length >= i, 500).catch(() => {});
  }
  const contactId = await newContact(server, otherOrg);
  const started = Date.now();
  await eventually('the other organisation\'s push', () => pushesTo(receiver.received, '/fast').length === 1, 5000);
  assert.ok(Date.now() - started < 5000);
  assert.is(bodyOf(pushesTo(receiver.received, '/fast')[0]).data.contact_id, contactId);
});

test.run();
