// The database stops answering without closing anything (its processes stopped, packets dropped): every request
// is answered 500 internal_error at REQUEST_TIMEOUT_MS instead of waiting for it, and once it answers again the
// service does too, with the late work of the timed-out requests neither sent nor logged as errors.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { startDatabaseProxy, type DatabaseProxy } from '../support/proxy.ts';
import { TIMED_OUT } from '../../src/http/messages.ts';
import { startApiOnly, type ApiOnly } from './support/apiOnly.ts';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';

const BOUND_MS = 2000;
const APP_SECRET = 'freeze-app-secret';

interface Ctx { server: TestServer; proxy: DatabaseProxy; api: ApiOnly; org: TestOrg; logged: string[] }
const test = suite<Ctx>('Database freeze: requests are answered 500 internal_error at the bound, and normally after the thaw');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.proxy = await startDatabaseProxy(ctx.server.db.url);
  ctx.logged = [];
  ctx.api = await startApiOnly(ctx.proxy.url, ctx.logged, { REQUEST_TIMEOUT_MS: String(BOUND_MS), PLATFORM_APP_SECRET: APP_SECRET });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => {
  ctx.proxy.thaw();
  await ctx.api.stop();
  await ctx.proxy.close();
  await ctx.server.stop();
});

const count = (ctx: Ctx, msg: string) => ctx.logged.filter((line) => line.includes(`"msg":"${msg}"`)).length;

test('frozen: 500 internal_error at about the bound; thawed: answers again, and a retried write lands once', async (ctx) => {
  const key = ctx.org.key;
  assert.is((await ctx.api.request('GET', '/contacts', { key })).status, 200);
  // The key is cached now: the requests below wait on the database in the rate limiter or later, not for the key.
  ctx.proxy.freeze();
  const started = Date.now();
  const reads = Array.from({ length: 10 }, () => ctx.api.request('GET', '/contacts', { key }));
  const write = ctx.api.request('POST', '/contacts', { key, body: { name: 'Frozen', email: 'frozen@x.pl' }, headers: { 'idempotency-key': 'frozen-1' } });
  const english = ctx.api.request('GET', '/me', { key, headers: { 'accept-language': 'en' } });
  const answers = await Promise.all([...reads, write, english]);
  const took = Date.now() - started;
  for (const answer of answers) {
    assert.is(answer.status, 500);
    assert.is(answer.body.error.code, 'internal_error');
    assert.ok(answer.headers.get('x-request-id'));
  }
  assert.is(answers[0].body.error.message, TIMED_OUT.pl);
  assert.is(answers.at(-1)!.body.error.message, TIMED_OUT.en);
  assert.ok(took >= BOUND_MS - 50 && took < BOUND_MS + 1500, `answered after ${took} ms (bound ${BOUND_MS} ms)`);
  assert.is(count(ctx, 'request timed out'), answers.length, 'one line per timed-out request');

  ctx.proxy.thaw();
  const thawed = Date.now();
  const after = await ctx.api.request('GET', '/contacts', { key });
  assert.is(after.status, 200, JSON.stringify(after.body));
  assert.ok(Date.now() - thawed < BOUND_MS, 'answered before the bound once the database answers');

  // The frozen write's outcome was unknown to its client; a retry with its Idempotency-Key lands it once (the
  // stored answer when the late handler committed it, a first run when it never started).
  const retried = await eventually('the retried write', async () => {
    const res = await ctx.api.request('POST', '/contacts', { key, body: { name: 'Frozen', email: 'frozen@x.pl' }, headers: { 'idempotency-key': 'frozen-1' } });
    return res.status === 409 && res.body.error.code === 'idempotency_in_progress' ? null : res;
  }, 10_000);
  assert.is(retried.status, 201, JSON.stringify(retried.body));
  const listed = await ctx.api.request('GET', '/contacts?email=frozen@x.pl', { key });
  assert.is(listed.body.data.length, 1);
  // Without the key, the e-mail is the safeguard: 409 contact_exists naming the card.
  const again = await ctx.api.request('POST', '/contacts', { key, body: { name: 'Frozen', email: 'frozen@x.pl' } });
  assert.is(again.status, 409);
  assert.is(again.body.error.details.contact_id, retried.body.id);

  // The timed-out requests' late work (rate limit, key claim, handlers) has finished by now: nothing was logged for it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.is(count(ctx, 'unexpected error'), 0, ctx.logged.join('\n'));
  assert.is(count(ctx, 'request timed out'), answers.length, ctx.logged.join('\n'));
});

test("the platform's leadgen webhook: 500 at the bound while frozen (the platform sends it again), then recorded once", async (ctx) => {
  const { services } = ctx.server;
  await connectPage(services.store, { organizationId: ctx.org.organizationId, pageId: '5500660077', token: 'page-token' }, services.secrets.encryptionKey, new Date());
  await ctx.server.settle();
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: '5500660077', formId: '5500660088', leadId: '5500660099', createdTime: '2025-06-01T09:00:00Z' }));
  const notify = () => fetch(`${ctx.api.origin}/platform/webhook`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(APP_SECRET, raw) }, body: raw,
  });

  ctx.proxy.freeze();
  const started = Date.now();
  const frozen = await notify();
  const took = Date.now() - started;
  assert.is(frozen.status, 500);
  assert.is((await frozen.json()).error.code, 'internal_error');
  assert.ok(took >= BOUND_MS - 50 && took < BOUND_MS + 1500, `answered after ${took} ms (bound ${BOUND_MS} ms)`);

  ctx.proxy.thaw();
  // The platform retries a notice that was not answered 200; the lead's claim stream makes it one lead.
  const again = await eventually('the notice sent again', async () => {
    const res = await notify();
    return res.status === 200 && res;
  }, 10_000);
  assert.equal(await again.json(), { received: 1 });
  const claims = await services.store.readStream(`lead-platform-${ctx.org.organizationId}-5500660099`);
  assert.is(claims.length, 1, 'one lead for the notice, sent twice');
  assert.is(count(ctx, 'unexpected error'), 0, ctx.logged.join('\n'));
});

test.run();
