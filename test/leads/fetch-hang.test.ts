// A lead fetch whose platform call hangs must not hold a transaction meanwhile: the event store shows events only
// below the oldest running transaction (pg_snapshot_xmin), so a claim held open across the platform's 30 s time-out
// (three tries: some 90 s) stalled every projector, and every write waited out its read-your-writes bound.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';

const SECRET = 'app-secret-for-tests';
interface Ctx { server: TestServer; platform: http.Server; asked: string[]; org: TestOrg }
const test = suite<Ctx>('Leads: a lead fetch the platform never answers');

test.before(async (ctx) => {
  ctx.asked = [];
  // Accepts every request and never answers it.
  ctx.platform = http.createServer((req) => { ctx.asked.push(req.url ?? ''); });
  await new Promise<void>((resolve) => ctx.platform.listen(0, '127.0.0.1', resolve));
  const platformUrl = `http://127.0.0.1:${(ctx.platform.address() as AddressInfo).port}`;
  ctx.server = await startTestServer({ PLATFORM_API_URL: platformUrl, PLATFORM_APP_SECRET: SECRET });
  ctx.org = await ctx.server.newOrganization();
  await connectPage(ctx.server.services.store, { organizationId: ctx.org.organizationId, pageId: 'page-9', token: 'page-token-9' }, ctx.server.services.secrets.encryptionKey, new Date());
  await ctx.server.settle();
});
test.after(async (ctx) => {
  // The hanging requests fail now (and their retries at once), so the workers stop.
  ctx.platform.closeAllConnections();
  ctx.platform.close();
  await ctx.server.stop();
});

test('while the platform holds a lead fetch, writes are read back at once', async (ctx) => {
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-9', formId: 'form-9', leadId: 'lead-9', createdTime: new Date().toISOString() }));
  const notice = await fetch(`${ctx.server.origin}/platform/webhook`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(SECRET, raw) }, body: raw,
  });
  assert.is(notice.status, 200);
  await eventually('the lead fetch asking the platform', () => ctx.asked.some((url) => url.includes('lead-9')), 10_000);

  const started = Date.now();
  const created = await ctx.server.request('POST', '/contacts', { key: ctx.org.key, body: { name: 'Meanwhile', email: 'meanwhile@x.pl' } });
  const took = Date.now() - started;
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.ok(took < 4000, `POST /contacts waited ${took} ms for its read models`);
  const listed = await ctx.server.request('GET', '/contacts?email=meanwhile@x.pl', { key: ctx.org.key });
  assert.is(listed.body.data.length, 1, 'the projectors are not held back');
});

test.run();
