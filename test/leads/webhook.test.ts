import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import { formSourceId, sourceCreated } from '../../commands/source/handlers.ts';
import { platformLead } from './support.ts';
import { LEADGEN_REFUSED, MESSAGES } from '../../src/http/messages.ts';

const SECRET = 'app-secret-for-tests';
const run = promisify(execFile);
const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg }>('Leads: the leadgen webhook and the lead fetch');
test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, PLATFORM_APP_SECRET: SECRET, PLATFORM_VERIFY_TOKEN: 'verify-me', DELIVERY_RETRY_SCHEDULE: '100ms,200ms' });
  ctx.org = await ctx.server.newOrganization();
  ctx.sandbox.seedPage({ id: 'page-77', name: 'Clinic' });
  ctx.sandbox.seedForm({ id: 'form-77', pageId: 'page-77', name: 'Free consultation' });
  await connectPage(ctx.server.services.store, { organizationId: ctx.org.organizationId, pageId: 'page-77', token: 'page-token-77' }, ctx.server.services.secrets.encryptionKey, new Date());
  await ctx.server.settle();
  // Connecting a page queues a backfill import of its leads: it must be over before a test seeds a lead in
  // the sandbox, or it may import that lead before the test's own notice arrives (which then adds nothing).
  await eventually('the backfill import of the connected page', async () => {
    const { rows } = await ctx.server.services.pool.query<{ status: string }>(`SELECT status FROM jobs WHERE organization_id = $1 AND kind = 'lead_import'`, [ctx.org.organizationId]);
    return rows.length > 0 && rows.every((r) => ['done', 'failed', 'cancelled'].includes(r.status));
  });
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

function notice(leadId: string, pageId = 'page-77') {
  return JSON.stringify(leadgenWebhookBody({ pageId, formId: 'form-77', leadId, createdTime: '2025-06-01T09:00:00Z' }));
}

function post(server: TestServer, raw: string, signature: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  return fetch(`${server.origin}/platform/webhook`, { method: 'POST', headers, body: raw });
}

function seed(sandbox: Sandbox, id: string, email: string) {
  sandbox.seedLead({ id, formId: 'form-77', createdTime: '2025-06-01T09:00:00Z', platform: 'fb', ad: { ad_id: 'ad-7', ad_name: 'Ad 7', adset_id: 'as-7', adset_name: 'Set 7', campaign_id: 'camp-7', campaign_name: 'Camp 7' }, answers: { email, full_name: 'Zofia' } });
}

const leadStreamOf = async (server: TestServer, org: TestOrg, platformLeadId: string) =>
  server.services.store.readStream(`lead-platform-${org.organizationId}-${platformLeadId}`);

async function leadEvents(server: TestServer, org: TestOrg, platformLeadId: string) {
  const [claim] = await leadStreamOf(server, org, platformLeadId);
  return server.services.store.readStream(`lead-${(claim.data as { leadId: string }).leadId}`);
}

test('the verification handshake echoes hub.challenge for the right token only', async ({ server }) => {
  const ok = await fetch(`${server.origin}/platform/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444`);
  assert.is(ok.status, 200);
  assert.is(await ok.text(), '1158201444');
  const wrong = await fetch(`${server.origin}/platform/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
  assert.is(wrong.status, 401);
  // Its own message, not the one of a missing API key (this endpoint takes none).
  const body = await wrong.json();
  assert.is(body.error.code, 'unauthorized');
  assert.is(body.error.message, LEADGEN_REFUSED.verifyToken.pl);
  const en = await fetch(`${server.origin}/platform/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`, { headers: { 'accept-language': 'en' } });
  assert.is((await en.json()).error.message, LEADGEN_REFUSED.verifyToken.en);
});

test('a handshake without hub.challenge, or with two, is 400 naming it: no empty or joined echo taken for a verification', async ({ server }) => {
  const base = `${server.origin}/platform/webhook?hub.mode=subscribe&hub.verify_token=verify-me`;
  for (const [query, message] of [['', 'missing: the handshake answers it back'], ['&hub.challenge=', 'missing: the handshake answers it back'], ['&hub.challenge=1&hub.challenge=2', 'given more than once; give it once']]) {
    const res = await fetch(`${base}${query}`);
    assert.is(res.status, 400, query);
    const body = await res.json();
    assert.is(body.error.code, 'validation_error', query);
    assert.equal(body.error.details.fields, [{ field: 'hub.challenge', message }], query);
  }
  // The token is checked first: a wrong one without a challenge is still 401.
  assert.is((await fetch(`${server.origin}/platform/webhook?hub.mode=subscribe&hub.verify_token=nope`)).status, 401);
  const echoed = await fetch(`${base}&hub.challenge=${encodeURIComponent('abc x<y')}`);
  assert.equal([echoed.status, await echoed.text()], [200, 'abc x<y']);
});

test('a signed notice is recorded pending at once, then fetched with the page token: ready, with its person and ad', async ({ server, sandbox, org }) => {
  seed(sandbox, 'W-1', 'zofia@example.com');
  const raw = notice('W-1');
  const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
  assert.is(res.status, 200);
  assert.equal(await res.json(), { received: 1 });
  const events = await eventually('lead W-1 fetched', async () => {
    const all = await leadEvents(server, org, 'W-1');
    return all.length === 2 && all;
  });
  assert.equal(events.map((e) => [e.type, (e.data as { fetchStatus: string }).fetchStatus]), [['LeadReceived', 'pending'], ['LeadFetched', 'ready']]);
  await server.settle();
  const list = await server.request('GET', '/leads?campaign=camp-7', { key: org.key });
  const [lead] = list.body.data;
  assert.equal([lead.platform_lead_id, lead.fetch_status, lead.form_name, lead.platform_page_id, lead.ad.ad_id, lead.created_at], ['W-1', 'ready', 'Free consultation', 'page-77', 'ad-7', '2025-06-01T09:00:00.000Z']);
  const person = await server.request('GET', `/contacts/${lead.contact_id}`, { key: org.key });
  assert.equal([person.body.email, person.body.name, person.body.first_source], ['zofia@example.com', 'Zofia', 'Free consultation']);
});

test('a pending lead shows its form\'s name when earlier leads made the form known; a form never seen has none yet', async ({ server, org }) => {
  // form-77 is known from W-1; form-new is not. Neither lead is in the sandbox, so both stay unfetched (failed).
  for (const [leadId, formId] of [['W-pend-1', 'form-77'], ['W-pend-2', 'form-new']]) {
    const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-77', formId, leadId, createdTime: '2025-06-01T09:00:00Z' }));
    assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  }
  const received = await Promise.all(['W-pend-1', 'W-pend-2'].map(async (id) => (await leadEvents(server, org, id))[0].data as { formName: string }));
  assert.equal(received.map((d) => d.formName), ['Free consultation', '']);
});

test('answers carry the form\'s questions as the person saw them (label), from the form\'s questions field', async ({ server, sandbox, org }) => {
  sandbox.seedForm({
    id: 'form-78', pageId: 'page-77', name: 'Budget form',
    questions: [{ key: 'email', label: 'E-mail', type: 'EMAIL' }, { key: 'jaki_jest_twój_budżet?', label: 'Jaki jest Twój budżet?', type: 'CUSTOM' }],
  });
  sandbox.seedLead({ id: 'W-Q', formId: 'form-78', createdTime: '2025-06-01T09:00:00Z', answers: { email: 'labels@example.com', 'jaki_jest_twój_budżet?': '10k', full_name: 'Ola' } });
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-77', formId: 'form-78', leadId: 'W-Q', createdTime: '2025-06-01T09:00:00Z' }));
  assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  await eventually('lead W-Q fetched', async () => (await leadEvents(server, org, 'W-Q')).length === 2);
  await server.settle();
  const [claim] = await leadStreamOf(server, org, 'W-Q');
  const lead = await server.request('GET', `/leads/${(claim.data as { leadId: string }).leadId}`, { key: org.key });
  assert.is(lead.body.form_name, 'Budget form');
  // A key the form does not list (full_name here) keeps the label made from its key.
  assert.equal(lead.body.answers, [
    { key: 'email', label: 'E-mail', values: ['labels@example.com'] },
    { key: 'jaki_jest_twój_budżet?', label: 'Jaki jest Twój budżet?', values: ['10k'] },
    { key: 'full_name', label: 'Full name', values: ['Ola'] },
  ]);
});

test('the form call failing for now is retried with the lead: its first lead does not name the form, its person and its source by the form id', async ({ server, sandbox, org }) => {
  sandbox.seedForm({ id: 'form-79', pageId: 'page-77', name: 'Dental check', questions: [{ key: 'budget', label: 'Your budget?' }] });
  sandbox.seedLead({ id: 'W-F', formId: 'form-79', createdTime: '2025-06-01T09:00:00Z', answers: { email: 'formflaky@example.com', budget: '5k' } });
  // The Graph client tries a read three times in-process: three failures outlast one attempt of the fetch.
  sandbox.injectFailures({ match: '/form-79', count: 3, transient: true });
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-77', formId: 'form-79', leadId: 'W-F', createdTime: '2025-06-01T09:00:00Z' }));
  assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  const events = await eventually('lead W-F fetched', async () => {
    const all = await leadEvents(server, org, 'W-F');
    return all.some((e) => e.type === 'LeadFetched') && all;
  });
  assert.equal(events.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetched']);
  await server.settle();
  const lead = await server.request('GET', `/leads/${(events[0].data as { leadId: string }).leadId}`, { key: org.key });
  assert.equal([lead.body.form_name, lead.body.answers.find((a: { key: string }) => a.key === 'budget').label], ['Dental check', 'Your budget?']);
  const person = await server.request('GET', `/contacts/${lead.body.contact_id}`, { key: org.key });
  assert.is(person.body.first_source, 'Dental check');
  assert.is((await sourceCreated(server.services.store, formSourceId(org.organizationId, 'form-79')))?.name, 'Dental check');
});

test('when the form call still fails at the last attempt the lead is stored all the same, named by its form id', async ({ server, sandbox, org }) => {
  sandbox.seedForm({ id: 'form-80', pageId: 'page-77', name: 'Never shown' });
  sandbox.seedLead({ id: 'W-G', formId: 'form-80', createdTime: '2025-06-01T09:00:00Z', answers: { email: 'formdown@example.com' } });
  sandbox.injectFailures({ match: '/form-80', count: 100, transient: true });
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-77', formId: 'form-80', leadId: 'W-G', createdTime: '2025-06-01T09:00:00Z' }));
  assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  const events = await eventually('lead W-G fetched', async () => {
    const all = await leadEvents(server, org, 'W-G');
    return all.some((e) => e.type === 'LeadFetched' || e.type === 'LeadFetchFailed') && all;
  });
  assert.equal(events.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetchRetryScheduled', 'LeadFetched']);
});

test('a forged or missing signature is refused with its own message (not the API key\'s) and nothing is recorded', async ({ server, sandbox, org }) => {
  seed(sandbox, 'W-2', 'forged@example.com');
  const raw = notice('W-2');
  for (const signature of [signLeadgenPayload('wrong-secret', raw), null, 'sha256=', signLeadgenPayload(SECRET, raw + ' ')]) {
    const res = await post(server, raw, signature);
    assert.is(res.status, 401, String(signature));
    const { error } = await res.json();
    assert.is(error.code, 'unauthorized');
    // The signature is named, not a missing API key (the webhook takes none), in either language.
    assert.match(error.message, /^Brak nagłówka X-Hub-Signature-256 lub podpis nie zgadza się z treścią/);
    assert.is.not(error.message, MESSAGES.unauthorized.pl);
  }
  const en = await fetch(`${server.origin}/platform/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'en-GB' }, body: raw });
  assert.is(en.status, 401);
  assert.match((await en.json()).error.message, /^The X-Hub-Signature-256 header is missing or does not match the body/);
  assert.equal(await leadStreamOf(server, org, 'W-2'), []);
});

test('the same lead delivered twice is one lead; a page no organisation connected is ignored', async ({ server, sandbox, org }) => {
  seed(sandbox, 'W-3', 'twice@example.com');
  const raw = notice('W-3');
  await Promise.all([post(server, raw, signLeadgenPayload(SECRET, raw)), post(server, raw, signLeadgenPayload(SECRET, raw))]);
  await eventually('lead W-3 received and fetched', async () => (await leadEvents(server, org, 'W-3')).length === 2);
  assert.is((await leadStreamOf(server, org, 'W-3')).length, 1);
  const again = await post(server, raw, signLeadgenPayload(SECRET, raw));
  assert.is(again.status, 200);
  await server.settle();
  const rows = await server.services.pool.query('SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id = $2', [org.organizationId, 'W-3']);
  assert.is(rows.rows[0].n, 1);
  const stranger = notice('W-4', 'page-nobody');
  const res = await post(server, stranger, signLeadgenPayload(SECRET, stranger));
  assert.equal(await res.json(), { received: 0 });
});

test('transient platform failures are retried; when retries run out the lead is failed with the reason kept', async ({ server, sandbox, org }) => {
  seed(sandbox, 'W-5', 'retry@example.com');
  // The Graph client retries a read twice in-process; four failures outlast one attempt, not two.
  sandbox.injectFailures({ match: '/W-5', count: 4, transient: true });
  const raw5 = notice('W-5');
  await post(server, raw5, signLeadgenPayload(SECRET, raw5));
  const ready = await eventually('lead W-5 fetched after its retry', async () => {
    const all = await leadEvents(server, org, 'W-5');
    return all.some((e) => e.type === 'LeadFetched') && all;
  });
  assert.equal(ready.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetched']);

  seed(sandbox, 'W-6', 'never@example.com');
  sandbox.injectFailures({ match: '/W-6', count: 10, transient: true, message: 'Service temporarily unavailable' });
  const raw6 = notice('W-6');
  await post(server, raw6, signLeadgenPayload(SECRET, raw6));
  const failed = await eventually('lead W-6 failed', async () => {
    const all = await leadEvents(server, org, 'W-6');
    return all.some((e) => e.type === 'LeadFetchFailed') && all;
  });
  assert.equal(failed.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetchRetryScheduled', 'LeadFetchFailed']);
  assert.match((failed[3].data as { reason: string }).reason, /Service temporarily unavailable/);
  await server.settle();
  const lead = await server.request('GET', `/leads/${(failed[0].data as { leadId: string }).leadId}`, { key: org.key });
  assert.equal([lead.body.fetch_status, lead.body.contact_id], ['failed', null]);
  // Its data arriving later (the export file, the lead_import job) completes it, as it completes a pending lead.
  const imported = await receiveLead(server.services, { organizationId: org.organizationId, lead: platformLead({ id: 'W-6', formId: 'form-77', formName: 'Free consultation', email: 'never@example.com' }), via: 'import' }, { organizationId: org.organizationId, actor: 'test' });
  await server.settle();
  const completed = await server.request('GET', `/leads/${lead.body.id}`, { key: org.key });
  assert.equal([completed.body.fetch_status, completed.body.contact_id, completed.body.cycle], ['ready', imported.contactId, 1]);
  assert.ok(imported.contactId);
  assert.equal([imported.created, imported.completed], [false, true], 'counted as completed, not as known');
});

test('a lead the platform does not know fails at once (a permanent refusal is not retried)', async ({ server, org }) => {
  const raw = notice('W-missing');
  await post(server, raw, signLeadgenPayload(SECRET, raw));
  const failed = await eventually('lead W-missing failed', async () => {
    const all = await leadEvents(server, org, 'W-missing');
    return all.some((e) => e.type === 'LeadFetchFailed') && all;
  });
  assert.equal(failed.map((e) => e.type), ['LeadReceived', 'LeadFetchFailed']);
});

/** A notice as the platform writes it, with the created_time given (entry.time stays a real one: 2025-06-01 09:00 UTC). */
function noticeCreatedAt(leadId: string, createdTime: unknown) {
  return JSON.stringify({ object: 'page', entry: [{ id: 'page-77', time: 1748768400, changes: [{ field: 'leadgen', value: { leadgen_id: leadId, page_id: 'page-77', form_id: 'form-77', created_time: createdTime } }] }] });
}

test('a leadgen rate limit (code 80005, HTTP 400, not flagged transient) is retried, not failed', async ({ server, sandbox, org }) => {
  // The platform answers its business use case rate limits with 400 and without is_transient; they were read as refusals.
  seed(sandbox, 'W-80005', 'limited@example.com');
  sandbox.injectFailures({ match: '/W-80005', count: 3, status: 400, code: 80005, transient: false, message: '(#80005) There have been too many leadgen api calls to this Page. Wait a bit and try again.' });
  const raw = notice('W-80005');
  await post(server, raw, signLeadgenPayload(SECRET, raw));
  const done = await eventually('lead W-80005 settled', async () => {
    const all = await leadEvents(server, org, 'W-80005');
    return all.some((e) => e.type === 'LeadFetched' || e.type === 'LeadFetchFailed') && all;
  });
  assert.equal(done.map((e) => e.type), ['LeadReceived', 'LeadFetchRetryScheduled', 'LeadFetched']);
  assert.match((done[1].data as { reason: string }).reason, /^platform 400: \(#80005\) There have been too many leadgen api calls/);
});

test('a created_time past what a date can hold is no 500: the notice is recorded at the entry\'s time', async ({ server, org }) => {
  const raw = noticeCreatedAt('W-T1', 1e20);
  const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
  assert.is(res.status, 200);
  assert.equal(await res.json(), { received: 1 });
  const [received] = await leadEvents(server, org, 'W-T1');
  assert.is((received.data as { submittedAt: string }).submittedAt, '2025-06-01T09:00:00.000Z');
});

test('a created_time after the year 9999 stops no projector: the lead is listed, submitted at the entry\'s time', async ({ server, org }) => {
  // 10^12 seconds is the year 33658: a time a JavaScript date holds and PostgreSQL refuses.
  const raw = noticeCreatedAt('W-T2', 1e12);
  assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  await server.settle();
  const list = await server.request('GET', '/leads?limit=100', { key: org.key });
  const lead = list.body.data.find((l: { platform_lead_id: string }) => l.platform_lead_id === 'W-T2');
  assert.is(lead?.created_at, '2025-06-01T09:00:00.000Z');
});

test('a notice with neither created_time nor entry time is submitted when it arrived, not in 1970', async ({ server, org }) => {
  const raw = JSON.stringify({ object: 'page', entry: [{ id: 'page-77', changes: [{ field: 'leadgen', value: { leadgen_id: 'W-T3', page_id: 'page-77', form_id: 'form-77' } }] }] });
  const before = Date.now();
  assert.is((await post(server, raw, signLeadgenPayload(SECRET, raw))).status, 200);
  const [received] = await leadEvents(server, org, 'W-T3');
  const at = Date.parse((received.data as { submittedAt: string }).submittedAt);
  assert.ok(at >= before - 1000 && at <= Date.now(), (received.data as { submittedAt: string }).submittedAt);
});

test('a notice whose leadgen_id cannot be read (null, empty, an object, a number past 2^53) records no lead', async ({ server, org }) => {
  for (const leadgenId of [null, '', { id: '1' }, 12345678901234567890]) {
    const raw = noticeCreatedAt('unused', 1748768400).replace('"unused"', JSON.stringify(leadgenId));
    const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
    assert.equal([res.status, await res.json()], [200, { received: 0 }], JSON.stringify(leadgenId));
  }
  await server.settle();
  for (const platformLeadId of ['null', '', '[object Object]', '12345678901234567000']) {
    assert.equal(await leadStreamOf(server, org, platformLeadId), [], platformLeadId);
  }
});

test('a notice whose form_id or page_id cannot be read (an object, a list, true, a number past 2^53) records no lead', async ({ server, org }) => {
  const cases: [string, unknown][] = [['form_id', { id: 'f' }], ['form_id', ['a', 'b']], ['form_id', true], ['form_id', 12345678901234567890], ['page_id', { id: 'page-77' }], ['page_id', ['page-77']]];
  for (const [i, [field, value]] of cases.entries()) {
    const raw = noticeCreatedAt(`W-odd-id-${i}`, 1748768400).replace(new RegExp(`"${field}":"[^"]*"`), `"${field}":${JSON.stringify(value)}`);
    const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
    assert.equal([res.status, await res.json()], [200, { received: 0 }], raw);
  }
  await server.settle();
  for (const i of cases.keys()) assert.equal(await leadStreamOf(server, org, `W-odd-id-${i}`), [], `W-odd-id-${i}`);
  // A number read exactly is an id like its text, as the platform's own numeric ids are.
  const raw = noticeCreatedAt('W-numeric-form', 1748768400).replace('"form_id":"form-77"', '"form_id":770077');
  assert.equal(await (await post(server, raw, signLeadgenPayload(SECRET, raw))).json(), { received: 1 });
  assert.is(((await leadEvents(server, org, 'W-numeric-form'))[0].data as { platformFormId: string }).platformFormId, '770077');
});

test('a notice whose leadgen_id, page_id or form_id holds a NUL or a lone surrogate records no lead, and is no 500', async ({ server }) => {
  const raws = [
    noticeCreatedAt('unused', 1748768400).replace('"unused"', JSON.stringify('W-\u0000nul')),
    noticeCreatedAt('W-surrogate', 1748768400).replaceAll('"page-77"', JSON.stringify('page-\ud800')),
    noticeCreatedAt('W-form-nul', 1748768400).replace('"form-77"', JSON.stringify('form\u0000')),
  ];
  for (const raw of raws) {
    const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
    assert.equal([res.status, await res.json()], [200, { received: 0 }], raw);
  }
});

test('an entry or a change that is null (or no object) in a signed notice is skipped, not a 500; the other changes count', async ({ server, sandbox, org }) => {
  seed(sandbox, 'W-beside-null', 'beside-null@example.com');
  const good = leadgenWebhookBody({ pageId: 'page-77', formId: 'form-77', leadId: 'W-beside-null', createdTime: '2025-06-01T09:00:00Z' }).entry[0];
  for (const entry of [[null], [{ id: 'page-77', time: 1748768400, changes: [null, 7] }], [1, 'x'], [null, { ...good, changes: [null, ...good.changes] }]]) {
    const raw = JSON.stringify({ object: 'page', entry });
    const res = await post(server, raw, signLeadgenPayload(SECRET, raw));
    assert.equal([res.status, await res.json()], [200, { received: entry.length === 2 && entry[0] === null ? 1 : 0 }], raw);
  }
  assert.is((await leadStreamOf(server, org, 'W-beside-null')).length, 1);
});

test('a notice over 1 MB is 413 payload_too_large naming its own limit, not the API\'s 64 KB', async ({ server }) => {
  const res = await post(server, JSON.stringify({ object: 'page', entry: [], pad: 'x'.repeat(1024 * 1024) }), 'sha256=00');
  assert.is(res.status, 413);
  const body = await res.json() as { error: { code: string; message: string; details: { limit_bytes: number } } };
  assert.is(body.error.code, 'payload_too_large');
  assert.is(body.error.details.limit_bytes, 1024 * 1024);
  assert.not.match(body.error.message, /64 KB/);
});

test('ops page connect ties a page to an organisation (the token is stored sealed)', async ({ server }) => {
  const org = await server.newOrganization();
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const out = await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'page', 'connect', '--org', org.organizationId, '--page', '880088', '--token', 'secret-page-token', '--json'], { env });
  assert.equal(JSON.parse(out.stdout), { page_id: '880088', organization_id: org.organizationId, moved_from: null });
  const [event] = await server.services.store.readStream('page-880088');
  assert.not.ok(JSON.stringify(event.data).includes('secret-page-token'));
  await server.settle();
  const row = await server.services.pool.query('SELECT organization_id FROM platform_pages WHERE page_id = $1', ['880088']);
  assert.is(row.rows[0].organization_id, org.organizationId);
});

test.run();
