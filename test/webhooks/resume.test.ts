import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { bodyOf, drained, newContact, pushesTo, subscribe } from './support/hooks.ts';
import { eventually } from '../support/eventually.ts';
import { autoPauseWebhook } from '../../commands/webhook/handlers.ts';

const test = suite<{ server: TestServer; receiver: Receiver }>('Webhooks: a resume sends what is queued');
/** What the receiver answers, by path (the path names the test). */
const answers = new Map<string, number>();
test.before(async (ctx) => {
  // Retries an hour apart: a push that failed before the pause is due long after the resume.
  ctx.server = await startTestServer({ WEBHOOK_PAUSE_AFTER: '1', WEBHOOK_RETRY_SCHEDULE: '1h' });
  ctx.receiver = await startReceiver((push, res) => { res.writeHead(answers.get(push.path) ?? 200).end(); });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.receiver.close();
});

test('a push put off to a later retry by the failures that paused the subscription goes out on resume, not at its retry time', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  answers.set('/fixed', 503);
  const hook = await subscribe(server, org, receiver.url('/fixed'));
  const ping = await server.request('POST', `/webhooks/${hook.id}/test`, { key: org.key });
  await eventually('the automatic pause', async () => (await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body.active === false);
  const later = await newContact(server, org);
  answers.set('/fixed', 200);
  const resumed = await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } });
  assert.equal([resumed.body.active, resumed.body.consecutive_failures], [true, 0]);
  await drained(server, org.organizationId);
  const pushes = pushesTo(receiver.received, '/fixed');
  assert.is(pushes.length, 3, 'the failed ping, then the ping again and the event of the pause');
  assert.equal(pushes.slice(1).map((p) => bodyOf(p).type).sort(), ['contact.created', 'ping']);
  assert.ok(pushes.slice(1).some((p) => p.headers['x-service-delivery'] === ping.body.delivery_id));
  assert.ok(pushes.slice(1).some((p) => bodyOf(p).data.contact_id === later));
});

test('a resume that lands between the sender\'s failure count and its pause is not undone by the pause', async ({ server, receiver }) => {
  const org = await server.newOrganization();
  const hook = await subscribe(server, org, receiver.url('/race'));
  // The sender counted the failures of the run before any resume (0), then the caller resumed: that run is over.
  assert.is((await server.request('PATCH', `/webhooks/${hook.id}`, { key: org.key, body: { active: true } })).status, 200);
  const reason = 'paused after 1 failed attempts in a row';
  await autoPauseWebhook(server.services, { organizationId: org.organizationId, webhookId: hook.id, reason, resumes: 0 });
  await server.settle();
  assert.is((await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body.active, true);
  // A count of the run the resume began pauses it.
  await autoPauseWebhook(server.services, { organizationId: org.organizationId, webhookId: hook.id, reason, resumes: 1 });
  await server.settle();
  assert.is((await server.request('GET', `/webhooks/${hook.id}`, { key: org.key })).body.active, false);
});

test.run();
