// SHUTDOWN_GRACE on the service's other outbound paths, as test/ops/shutdown.test.ts checks it for deliveries: a
// lead fetch (GET /{lead_id}, 30 s time-out and two in-process retries) and a webhook push (WEBHOOK_TIMEOUT_MS) that
// never get an answer must not hold a stop past the grace, and the work they held is done after a restart, once.
import type { ServerResponse } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../webhooks/support/harness.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { silentPlatform, start, stopWith, type Started } from './service-process.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('SHUTDOWN_GRACE: a lead fetch or a webhook push that gets no answer ends within the grace, and is done after a restart');
test.before(async (ctx) => { ctx.db = await freshDatabase('shutdown_grace'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const SECRET = 'app-secret-for-grace';
const GRACE_MS = 1000;
/** What a stop may take beyond the grace: the rest of the orderly stop on a loaded machine. */
const STOP_SLACK_MS = 5000;
// JOB_CONCURRENCY 0: the page's backfill import would ask the platform too (and could import the lead itself).
const env = (db: TestDatabase) => ({ DATABASE_URL: db.url, SHUTDOWN_GRACE: `${GRACE_MS}ms`, JOB_CONCURRENCY: '0' });

/** SIGTERM, then the exit code and how long the stop took. */
async function stopTimed(started: Started): Promise<{ code: number | null; took: number }> {
  const signalled = Date.now();
  const code = await stopWith(started, 'SIGTERM');
  return { code, took: Date.now() - signalled };
}

function assertStoppedWithinGrace(started: Started, stop: { code: number | null; took: number }, what: string): void {
  assert.is(stop.code, 0, started.output());
  assert.match(started.output(), /"msg":"stopped"/);
  assert.ok(stop.took < GRACE_MS + STOP_SLACK_MS, `the stop took ${stop.took} ms (grace ${GRACE_MS} ms)`);
  console.log(`    stop with ${what} in flight: ${stop.took} ms (SHUTDOWN_GRACE ${GRACE_MS} ms)`);
}

test('SIGTERM while a lead fetch waits for a platform that never answers: exit within the grace, the lead fetched once after a restart', async ({ db }) => {
  const [pageId, formId, leadId] = ['3300001', '3300002', '3300003'];
  const sandbox: Sandbox = await startSandbox();
  sandbox.seedPage({ id: pageId, name: 'Clinic' });
  sandbox.seedForm({ id: formId, pageId, name: 'Consultation' });
  sandbox.seedLead({ id: leadId, formId, createdTime: '2026-01-05T09:00:00Z', platform: 'fb', answers: { email: 'grace@x.pl', full_name: 'Grace' } });
  const silent = await silentPlatform();
  // The API and the projectors, no process manager: the services started below fetch the lead.
  const api: Harness = await startHarness(db.url, {}, false);
  const started: Started[] = [];
  try {
    const org = await api.newOrganization();
    await connectPage(api.services.store, { organizationId: org.organizationId, pageId, token: 'page-token' }, api.services.secrets.encryptionKey, new Date());
    await api.settle();
    const leadEnv = { ...env(db), PLATFORM_APP_SECRET: SECRET, DELIVERY_RETRY_SCHEDULE: '1s,1s' };

    const first = await start({ ...leadEnv, PLATFORM_API_URL: silent.url });
    started.push(first);
    const raw = JSON.stringify(leadgenWebhookBody({ pageId, formId, leadId, createdTime: '2026-01-05T09:00:00Z' }));
    const notice = await fetch(`${first.url.replace(/\/v1$/, '')}/platform/webhook`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(SECRET, raw) }, body: raw,
    });
    assert.is(notice.status, 200, await notice.text());
    await eventually('the lead fetch asking the platform', () => silent.asked.some((url) => url.includes(leadId)), 30_000);
    assertStoppedWithinGrace(first, await stopTimed(first), 'a lead fetch');

    const second = await start({ ...leadEnv, PLATFORM_API_URL: sandbox.url });
    started.push(second);
    const leadStream = async () => {
      const [claim] = await api.services.store.readStream(`lead-platform-${org.organizationId}-${leadId}`);
      return `lead-${(claim.data as { leadId: string }).leadId}`;
    };
    const events = await eventually('the lead fetched after the restart', async () => {
      const all = await api.services.store.readStream(await leadStream());
      return all.some((e) => e.type === 'LeadFetched' || e.type === 'LeadFetchFailed') && all;
    }, 30_000);
    // The interrupted fetch is a transient failure with a retry; the retry, in the second process, fetches it.
    assert.equal(events.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetched']);
    assert.match((events[1].data as { reason: string }).reason, /stopping/);
    assert.is(sandbox.requestsTo(`/${leadId}`), 1, 'the sandbox was asked for the lead once');
    await api.settle();
    const lead = await api.request('GET', `/leads/${(events[0].data as { leadId: string }).leadId}`, { key: org.key });
    assert.is(lead.status, 200, JSON.stringify(lead.body));
    assert.is(lead.body.fetch_status, 'ready');
    assert.is(await stopWith(second, 'SIGTERM'), 0, second.output());
  } finally {
    for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
    silent.close();
    await api.stop();
    await sandbox.stop();
  }
});

test('SIGTERM while a webhook push waits for a receiver that never answers: exit within the grace, the push delivered after a restart', async ({ db }) => {
  // Holds every request open until told to answer.
  let answering = false;
  const held: ServerResponse[] = [];
  const receiver: Receiver = await startReceiver((_push, res) => (answering ? res.writeHead(204).end() : held.push(res)));
  const api: Harness = await startHarness(db.url, { WEBHOOK_ALLOW_PRIVATE: '1' }, false);
  const started: Started[] = [];
  try {
    const org = await api.newOrganization();
    const hook = await api.request('POST', '/webhooks', { key: org.key, body: { url: receiver.url('/in'), events: ['contact.created'] } });
    assert.is(hook.status, 201, JSON.stringify(hook.body));
    const ping = await api.request('POST', `/webhooks/${hook.body.id}/test`, { key: org.key });
    assert.is(ping.status, 202, JSON.stringify(ping.body));
    const deliveryId = ping.body.delivery_id as string;
    // The default 10 s time-out: a stop that waited for it would take 10 s, not the grace.
    const hookEnv = { ...env(db), WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_RETRY_SCHEDULE: '1s,1s' };

    const first = await start(hookEnv);
    started.push(first);
    await eventually('the push reaching the receiver', () => receiver.received.length > 0, 30_000);
    assertStoppedWithinGrace(first, await stopTimed(first), 'a webhook push');
    for (const res of held) res.destroy();
    const heldCount = receiver.received.length;
    answering = true;

    const second = await start(hookEnv);
    started.push(second);
    // The interrupted push is no attempt, and its claim was released at the stop: it goes out at once, not when
    // the claim's lease (2 x 10 s + 1 s) would have ended.
    const restarted = Date.now();
    await eventually('the push delivered after the restart', () => receiver.received.length > heldCount, 60_000);
    const waited = Date.now() - restarted;
    assert.ok(waited < 10_000, `the push went out ${waited} ms after the restart: its claim was not released`);
    const attempts = await eventually('the attempt recorded', async () => {
      await api.settle();
      const listed = await api.request('GET', `/webhooks/${hook.body.id}/deliveries`, { key: org.key });
      return listed.body.data.length > 0 && (listed.body.data as { delivery_id: string; success: boolean; attempt: number; status: number }[]);
    }, 30_000);
    assert.equal(attempts.map((a) => [a.delivery_id, a.success, a.attempt, a.status]), [[deliveryId, true, 1, 204]]);
    assert.equal([...new Set(receiver.received.map((p) => p.headers['x-service-delivery']))], [deliveryId], 'the same delivery id each time');
    assert.is(receiver.received.length, heldCount + 1, 'delivered once after the restart');
    assert.is(await stopWith(second, 'SIGTERM'), 0, second.output());
  } finally {
    for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
    for (const res of held) res.destroy();
    await api.stop();
    await receiver.close();
  }
});

test.run();
