import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead, platformLead } from './support.ts';
import { receiveLead, recordPendingLead } from '../../commands/lead/intake.ts';
import { formSourceId } from '../../commands/source/handlers.ts';
import { sourceStream } from '../../commands/source/source.ts';

const run = promisify(execFile);

/** `ops leads import --org ORG --file FILE ...more`, answering its exit code and output whether it fails or not. */
function leadsImport(server: TestServer, org: TestOrg) {
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  return (file: string, ...more: string[]) => run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, ...more], { env })
    .then((out) => ({ code: 0, stdout: out.stdout, stderr: out.stderr }), (error: { code: number; stdout: string; stderr: string }) => error);
}
const test = suite<{ server: TestServer; org: TestOrg; other: TestOrg }>('Leads: intake, people, cycles and reads');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
  ctx.other = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

const types = async (server: TestServer, stream: string) => (await server.services.store.readStream(stream)).map((e) => e.type);

test('a new lead makes its person: first_source is the form, first_ad the lead\'s ad; events recorded', async ({ server, org }) => {
  const received = await importLead(server, org, { id: 'L-100', name: 'Jan Kowalski', email: 'Jan@Example.com', phone: '600100200', ad: 'ad-1', campaign: 'camp-1' });
  assert.is(received.created, true);
  const contact = await server.request('GET', `/contacts/${received.contactId}`, { key: org.key });
  assert.equal([contact.body.name, contact.body.email, contact.body.phone, contact.body.first_source], ['Jan Kowalski', 'jan@example.com', '+48600100200', 'Spring offer']);
  assert.equal(contact.body.first_ad, { platform: 'instagram', campaign_id: 'camp-1', campaign_name: 'Campaign', adset_id: 'as-1', adset_name: 'Adset', ad_id: 'ad-1', ad_name: 'Ad ad-1' });
  assert.is(contact.body.last_activity_at, '2025-03-01T10:00:00.000Z');
  assert.equal(await types(server, `contact-${received.contactId}`), ['ContactCreated', 'ContactLeadLinked']);
  assert.equal(await types(server, `lead-${received.leadId}`), ['LeadReceived']);
  const lead = await server.request('GET', `/leads/${received.leadId}`, { key: org.key });
  assert.is(lead.status, 200);
  assert.equal({ ...lead.body, updated_at: 'x', form_id: 'x', stages: [] }, {
    id: received.leadId, platform_lead_id: 'L-100', form_id: 'x', form_name: 'Spring offer', platform_form_id: 'form-1', platform_page_id: 'page-1',
    stage: 'new', cycle: 1, contact_id: received.contactId, fetch_status: 'ready', ad: contact.body.first_ad, stages: [],
    answers: [{ key: 'full_name', label: 'Full name', values: ['Jan Kowalski'] }, { key: 'email', label: 'Email', values: ['Jan@Example.com'] }, { key: 'phone_number', label: 'Phone number', values: ['600100200'] }],
    created_at: '2025-03-01T10:00:00.000Z', updated_at: 'x',
  });
  assert.equal(lead.body.stages.map((s: { stage: string; platform_event_queued: boolean }) => [s.stage, s.platform_event_queued]), [['new', false]]);
  const sources = await server.services.pool.query('SELECT id, kind, name, platform_form_id FROM sources WHERE organization_id = $1', [org.organizationId]);
  assert.equal(sources.rows.map((s) => [s.id, s.kind, s.name, s.platform_form_id]), [[lead.body.form_id, 'form', 'Spring offer', 'form-1']]);
});

test('the same lead twice is one lead; another lead of the person (phone or e-mail) joins the same contact', async ({ server, org }) => {
  const first = await importLead(server, org, { id: 'L-200', email: 'twice@example.com' });
  const again = await importLead(server, org, { id: 'L-200', email: 'twice@example.com' });
  assert.equal([again.leadId, again.contactId, again.created], [first.leadId, first.contactId, false]);
  const byEmail = await importLead(server, org, { id: 'L-201', email: ' TWICE@example.com', phone: '+48 600 300 400' });
  assert.is(byEmail.contactId, first.contactId);
  const byPhone = await importLead(server, org, { id: 'L-202', phone: '600300400' });
  assert.is(byPhone.contactId, first.contactId);
  const leads = await server.request('GET', `/leads?contact=${first.contactId}`, { key: org.key });
  assert.equal(leads.body.data.map((l: { platform_lead_id: string }) => l.platform_lead_id).sort(), ['L-200', 'L-201', 'L-202']);
  const count = await server.services.pool.query('SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id = $2', [org.organizationId, 'L-200']);
  assert.is(count.rows[0].n, 1);
});

test('a new lead for a sold person opens the next cycle: cycle + 1, stage new, and only the new lead moves next', async ({ server, org }) => {
  const first = await importLead(server, org, { id: 'L-300', email: 'cycle@example.com' });
  const sold = await server.request('POST', `/contacts/${first.contactId}/stage`, { key: org.key, body: { stage: 'sold', value: 100 } });
  assert.equal([sold.body.contact.stage, sold.body.leads_without_send, sold.body.platform_events_queued], ['sold', 1, 0]);
  const second = await importLead(server, org, { id: 'L-301', email: 'cycle@example.com', created: '2025-04-01T10:00:00+0000' });
  const contact = await server.request('GET', `/contacts/${first.contactId}`, { key: org.key });
  assert.equal([contact.body.stage, contact.body.cycle], ['new', 2]);
  assert.ok((await types(server, `contact-${first.contactId}`)).includes('ContactCycleOpened'));
  const newLead = await server.request('GET', `/leads/${second.leadId}`, { key: org.key });
  assert.equal([newLead.body.stage, newLead.body.cycle], ['new', 2]);
  const moved = await server.request('POST', `/contacts/${first.contactId}/stage`, { key: org.key, body: { stage: 'rejected' } });
  assert.is(moved.body.leads_without_send, 1);
  const oldLead = await server.request('GET', `/leads/${first.leadId}`, { key: org.key });
  assert.equal([oldLead.body.stage, oldLead.body.cycle], ['sold', 1]);
  assert.equal(oldLead.body.stages.map((s: { stage: string }) => s.stage), ['new', 'sold']);
  const after = await server.request('GET', `/leads/${second.leadId}`, { key: org.key });
  assert.equal(after.body.stages.map((s: { stage: string }) => s.stage), ['new', 'rejected']);
  const third = await importLead(server, org, { id: 'L-302', email: 'cycle@example.com' });
  const lead3 = await server.request('GET', `/leads/${third.leadId}`, { key: org.key });
  assert.is(lead3.body.cycle, 3);
});

test('a merged person: the lead moves to the survivor, and a new lead of the merged card\'s e-mail joins the survivor', async ({ server, org }) => {
  const a = await importLead(server, org, { id: 'L-400', email: 'merge-a@example.com', ad: 'ad-m', campaign: 'camp-m' });
  const b = await importLead(server, org, { id: 'L-401', email: 'merge-b@example.com' });
  const { mergeContacts } = await import('../../commands/contact/merge.ts');
  await mergeContacts(server.services, { fromId: a.contactId!, intoId: b.contactId! }, new Date());
  await server.settle();
  const lead = await server.request('GET', `/leads/${a.leadId}`, { key: org.key });
  assert.is(lead.body.contact_id, b.contactId);
  const people = await server.request('GET', '/contacts?campaign=camp-m', { key: org.key });
  assert.equal(people.body.data.map((c: { id: string }) => c.id), [b.contactId]);
  const later = await importLead(server, org, { id: 'L-402', email: 'merge-a@example.com' });
  assert.is(later.contactId, b.contactId);
  const moved = await server.request('POST', `/contacts/${b.contactId}/stage`, { key: org.key, body: { stage: 'qualified' } });
  assert.is(moved.body.leads_without_send, 3);
});

test('a person without a phone who takes a listed phone from a lead is blocked for SMS, as a new person with it would be', async ({ server, org }) => {
  const listed = await server.request('POST', '/contacts', { key: org.key, body: { phone: '+48600900901' } });
  await server.request('POST', `/contacts/${listed.body.id}/sms-optout`, { key: org.key, body: { sms_optout: true } });
  await server.request('PATCH', `/contacts/${listed.body.id}`, { key: org.key, body: { phone: '', email: 'listed-before@example.com' } });
  const person = await server.request('POST', '/contacts', { key: org.key, body: { email: 'takes-phone@example.com' } });
  assert.is(person.body.sms_optout, false);
  const received = await importLead(server, org, { id: 'L-SMS-1', email: 'takes-phone@example.com', phone: '600900901' });
  assert.is(received.contactId, person.body.id);
  const after = await server.request('GET', `/contacts/${person.body.id}`, { key: org.key });
  assert.equal([after.body.phone, after.body.sms_optout], ['+48600900901', true]);
});

test('a person a lead made without a phone or an e-mail can be renamed and tagged by PATCH (nothing to remain)', async ({ server, org }) => {
  const received = await importLead(server, org, { id: 'L-NOKEYS-1', name: 'Only A Name' });
  const before = await server.request('GET', `/contacts/${received.contactId}`, { key: org.key });
  assert.equal([before.body.phone, before.body.email], ['', '']);
  const renamed = await server.request('PATCH', `/contacts/${received.contactId}`, { key: org.key, body: { name: 'Renamed', tags: ['walk-in'] } });
  assert.is(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal([renamed.body.name, renamed.body.tags], ['Renamed', ['walk-in']]);
  const emailed = await server.request('PATCH', `/contacts/${received.contactId}`, { key: org.key, body: { email: 'no-keys@example.com' } });
  assert.is(emailed.body.email, 'no-keys@example.com');
  // Once it has one, the last of them must remain.
  const removed = await server.request('PATCH', `/contacts/${received.contactId}`, { key: org.key, body: { email: '' } });
  assert.is(removed.status, 400);
  assert.is(removed.body.error.code, 'validation_error');
});

test('lead filters: form, campaign, adset, ad, contact, stage, from/to by day in the organisation zone or by instant', async ({ server }) => {
  const org = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  // 23:30 UTC on 31 March is 1 April in Warsaw (UTC+2).
  const late = await importLead(server, org, { id: 'F-1', email: 'f1@example.com', created: '2025-03-31T23:30:00+0000', ad: 'ad-f', adset: 'as-f', campaign: 'camp-f' });
  const early = await importLead(server, org, { id: 'F-2', email: 'f2@example.com', created: '2025-03-31T12:00:00+0000', formId: 'form-2', formName: 'Other form' });
  const ids = async (query: string) => {
    const res = await server.request('GET', `/leads?${query}`, { key: org.key });
    assert.is(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return res.body.data.map((l: { platform_lead_id: string }) => l.platform_lead_id).sort();
  };
  const lateLead = await server.request('GET', `/leads/${late.leadId}`, { key: org.key });
  assert.equal(await ids(`form=${lateLead.body.form_id}`), ['F-1']);
  assert.equal(await ids('campaign=camp-f'), ['F-1']);
  assert.equal(await ids('adset=as-f'), ['F-1']);
  assert.equal(await ids('ad=ad-f'), ['F-1']);
  assert.equal(await ids(`contact=${early.contactId}`), ['F-2']);
  assert.equal(await ids('stage=new'), ['F-1', 'F-2']);
  assert.equal(await ids('stage=sold'), []);
  assert.equal(await ids('from=2025-04-01&to=2025-04-01'), ['F-1']);
  assert.equal(await ids('from=2025-03-31&to=2025-03-31'), ['F-2']);
  assert.equal(await ids(`from=${encodeURIComponent('2025-03-31T23:30:00Z')}`), ['F-1']);
  assert.equal(await ids(`to=${encodeURIComponent('2025-03-31T23:29:59.999Z')}`), ['F-2']);
  // An offset whose '+' was not percent-encoded arrives as a space; it is read as '+', as updated_since does.
  assert.equal(await ids('from=2025-04-01T01:30:00+02:00'), ['F-1']);
  assert.equal(await ids('to=2025-04-01T01:29:59+0200'), ['F-2']);
  const bad = await server.request('GET', '/leads?from=yesterday', { key: org.key });
  assert.is(bad.body.error.code, 'validation_error');
  // Named in words: the schema's either-or said only 'Invalid input'.
  for (const query of ['from=yesterday', 'to=2025-02-30']) {
    const refused = await server.request('GET', `/leads?${query}`, { key: org.key });
    assert.equal(refused.body.error.details.fields, [{ field: query.split('=')[0], message: 'a day (YYYY-MM-DD) or an ISO 8601 date-time' }], query);
  }
});

test('answers need leads:answers (absent otherwise); another organisation sees no lead; leads:read cannot read contacts', async ({ server, org, other }) => {
  const received = await importLead(server, org, { id: 'L-500', email: 'scoped@example.com', budget: '10k' });
  const reader = await server.newKey(org.organizationId, ['leads:read']);
  const one = await server.request('GET', `/leads/${received.leadId}`, { key: reader.key });
  assert.is(one.status, 200);
  assert.not.ok('answers' in one.body);
  const list = await server.request('GET', '/leads?limit=100', { key: reader.key });
  assert.ok(list.body.data.length > 0);
  assert.ok(list.body.data.every((l: object) => !('answers' in l)));
  const full = await server.newKey(org.organizationId, ['leads:answers']);
  const withAnswers = await server.request('GET', `/leads/${received.leadId}`, { key: full.key });
  assert.equal(withAnswers.body.answers.find((a: { key: string }) => a.key === 'budget'), { key: 'budget', label: 'Budget', values: ['10k'] });
  const foreign = await server.request('GET', `/leads/${received.leadId}`, { key: other.key });
  assert.is(foreign.status, 404);
  const foreignList = await server.request('GET', `/leads?contact=${received.contactId}`, { key: other.key });
  assert.equal(foreignList.body.data, []);
  const foreignAll = await server.request('GET', '/leads', { key: other.key });
  assert.not.ok(foreignAll.body.data.some((l: { id: string }) => l.id === received.leadId));
  const people = await server.request('GET', '/contacts', { key: reader.key });
  assert.is(people.status, 403);
});

test('a person a lead makes keeps the contact limits: name cut to 200 characters, an e-mail over 254 stays in the answers only', async ({ server, org }) => {
  const name = `${'Ł'.repeat(150)}${'😀'.repeat(100)}`;
  const email = `${'e'.repeat(250)}@example.com`;
  const received = await importLead(server, org, { id: 'L-LONG-1', name, email, phone: '600900977' });
  const contact = await server.request('GET', `/contacts/${received.contactId}`, { key: org.key });
  assert.is(contact.body.name, `${'Ł'.repeat(150)}${'😀'.repeat(50)}`);
  assert.is(contact.body.email, '');
  assert.is(contact.body.phone, '+48600900977');
  const lead = await server.request('GET', `/leads/${received.leadId}`, { key: org.key });
  assert.equal(lead.body.answers.find((a: { key: string }) => a.key === 'email').values, [email]);
  // A later PATCH of that card is not refused for a name the card got from its lead.
  const tagged = await server.request('PATCH', `/contacts/${received.contactId}`, { key: org.key, body: { tags: ['long'] } });
  assert.is(tagged.status, 200, JSON.stringify(tagged.body));
});

test('a form named with more than 200 characters still takes its leads: its source is named with the first 200', async ({ server, org }) => {
  const formName = `${'Ł'.repeat(150)}${'😀'.repeat(100)}`;
  const received = await importLead(server, org, { id: 'L-LONG-FORM-1', formId: 'form-long-name', formName, email: 'long-form@example.com' });
  assert.is(received.created, true);
  const lead = await server.request('GET', `/leads/${received.leadId}`, { key: org.key });
  assert.is(lead.body.form_name, formName);
  const sources = await server.services.pool.query('SELECT id, name FROM sources WHERE organization_id = $1 AND platform_form_id = $2', [org.organizationId, 'form-long-name']);
  assert.equal(sources.rows.map((s) => [s.id, s.name]), [[lead.body.form_id, `${'Ł'.repeat(150)}${'😀'.repeat(50)}`]]);
});

test('a lead that carries no form name (an export without form_name) shows the name its form is known by, not the form id', async ({ server, org }) => {
  await importLead(server, org, { id: 'L-NAMED-1', formId: 'form-named', formName: 'Summer offer', email: 'named-1@example.com' });
  const unnamed = await importLead(server, org, { id: 'L-NAMED-2', formId: 'form-named', formName: '', email: 'named-2@example.com' });
  const lead = await server.request('GET', `/leads/${unnamed.leadId}`, { key: org.key });
  assert.is(lead.body.form_name, 'Summer offer');
  const person = await server.request('GET', `/contacts/${unnamed.contactId}`, { key: org.key });
  assert.is(person.body.first_source, 'Summer offer');
  // A form never named keeps its id as its name, as before.
  const unknown = await importLead(server, org, { id: 'L-NAMED-3', formId: 'form-never-named', formName: '', email: 'named-3@example.com' });
  assert.is((await server.request('GET', `/leads/${unknown.leadId}`, { key: org.key })).body.form_name, 'form-never-named');
});

// A form source whose first lead named no form was named by the form id for good: a later lead naming the form
// renamed nothing, and every lead after it that names no form (and every pending one) showed the id again.
test('a form first seen without a name takes the name a later lead gives: later unnamed leads and pending ones show it', async ({ server, org }) => {
  const first = await importLead(server, org, { id: 'L-LATE-NAME-1', formId: 'form-late-name', formName: '', email: 'late-name-1@example.com' });
  assert.is((await server.request('GET', `/leads/${first.leadId}`, { key: org.key })).body.form_name, 'form-late-name');
  await importLead(server, org, { id: 'L-LATE-NAME-2', formId: 'form-late-name', formName: 'Autumn offer', email: 'late-name-2@example.com' });
  const later = await importLead(server, org, { id: 'L-LATE-NAME-3', formId: 'form-late-name', formName: '', email: 'late-name-3@example.com' });
  assert.is((await server.request('GET', `/leads/${later.leadId}`, { key: org.key })).body.form_name, 'Autumn offer');
  assert.is((await server.request('GET', `/contacts/${later.contactId}`, { key: org.key })).body.first_source, 'Autumn offer');
  const sourceId = formSourceId(org.organizationId, 'form-late-name');
  assert.equal((await server.services.pool.query('SELECT name FROM sources WHERE id = $1', [sourceId])).rows, [{ name: 'Autumn offer' }]);
  // A name the form has is kept: another one from a later lead renames nothing (that lead shows its own).
  const renamed = await importLead(server, org, { id: 'L-LATE-NAME-4', formId: 'form-late-name', formName: 'Winter offer', email: 'late-name-4@example.com' });
  assert.is((await server.request('GET', `/leads/${renamed.leadId}`, { key: org.key })).body.form_name, 'Winter offer');
  assert.equal((await server.services.pool.query('SELECT name FROM sources WHERE id = $1', [sourceId])).rows, [{ name: 'Autumn offer' }]);
  assert.equal((await server.services.store.readStream(sourceStream(sourceId))).map((e) => e.type), ['SourceCreated', 'SourceNameLearned']);
  // The first lead keeps the name it was received with; its person keeps the first_source it was made with.
  assert.is((await server.request('GET', `/leads/${first.leadId}`, { key: org.key })).body.form_name, 'form-late-name');
  // A lead the leadgen webhook names, pending its data, shows the name too.
  const pending = await recordPendingLead(server.services, { organizationId: org.organizationId, platformLeadId: 'L-LATE-NAME-5', platformFormId: 'form-late-name', platformPageId: 'page-1', submittedAt: '2025-03-01T10:00:00.000Z' }, { organizationId: org.organizationId, actor: 'test' });
  await server.settle();
  assert.is((await server.request('GET', `/leads/${pending.leadId}`, { key: org.key })).body.form_name, 'Autumn offer');
});

test('a lead that does not name its page (an export item without page_id) shows the page its form is known on', async ({ server, org }) => {
  await importLead(server, org, { id: 'L-PAGED-1', formId: 'form-paged', email: 'paged-1@example.com' });
  const lead = { ...platformLead({ id: 'L-PAGED-2', formId: 'form-paged', email: 'paged-2@example.com' }), pageId: null };
  const received = await receiveLead(server.services, { organizationId: org.organizationId, lead, via: 'import' }, { organizationId: org.organizationId, actor: 'test' });
  await server.settle();
  assert.is((await server.request('GET', `/leads/${received.leadId}`, { key: org.key })).body.platform_page_id, 'page-1');
  // A form no lead has named a page for shows none.
  const unpaged = { ...platformLead({ id: 'L-PAGED-3', formId: 'form-unpaged', email: 'paged-3@example.com' }), pageId: null };
  const other = await receiveLead(server.services, { organizationId: org.organizationId, lead: unpaged, via: 'import' }, { organizationId: org.organizationId, actor: 'test' });
  await server.settle();
  assert.is((await server.request('GET', `/leads/${other.leadId}`, { key: org.key })).body.platform_page_id, '');
});

// A form source first made without its page (an export lead without page_id, or `ops source create --kind form`)
// kept none: every later lead without page_id showed "" although a lead of the form had named its page meanwhile.
test('a form source made without its page learns it from a later lead that names it; a known page is kept', async ({ server, org }) => {
  const unpaged = (id: string) => ({ ...platformLead({ id, formId: 'form-late-page', email: `${id.toLowerCase()}@example.com` }), pageId: null });
  const receive = (lead: ReturnType<typeof platformLead>) =>
    receiveLead(server.services, { organizationId: org.organizationId, lead, via: 'import' }, { organizationId: org.organizationId, actor: 'test' });
  const pageOf = async (leadId: string) => (await server.request('GET', `/leads/${leadId}`, { key: org.key })).body.platform_page_id;
  const first = await receive(unpaged('L-LATE-1'));
  await server.settle();
  assert.is(await pageOf(first.leadId), '');
  const paged = await receive({ ...platformLead({ id: 'L-LATE-2', formId: 'form-late-page', email: 'l-late-2@example.com' }), pageId: '4242' });
  const later = await receive(unpaged('L-LATE-3'));
  await server.settle();
  assert.equal([await pageOf(first.leadId), await pageOf(paged.leadId), await pageOf(later.leadId)], ['', '4242', '4242']);
  const sourceId = formSourceId(org.organizationId, 'form-late-page');
  const stored = await server.services.pool.query('SELECT platform_page_id FROM sources WHERE id = $1', [sourceId]);
  assert.equal(stored.rows, [{ platform_page_id: '4242' }]);
  // A lead naming another page changes nothing of the source's: a form lives on one page.
  await receive({ ...platformLead({ id: 'L-LATE-4', formId: 'form-late-page', email: 'l-late-4@example.com' }), pageId: '5555' });
  const last = await receive(unpaged('L-LATE-5'));
  await server.settle();
  assert.is(await pageOf(last.leadId), '4242');
  const learned = (await server.services.store.readStream(sourceStream(sourceId))).filter((e) => e.type === 'SourcePageLearned');
  assert.is(learned.length, 1);
});

test('ops leads import reads the JSON export and the Ads Manager CSV; importing again adds nothing', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const json = path.join(dir, 'leads.json');
  fs.writeFileSync(json, JSON.stringify([
    { id: 'J-1', created_time: '2025-05-01T08:00:00+0000', form_id: 'form-j', form_name: 'JSON form', field_data: [{ name: 'email', values: ['j1@example.com'] }] },
    { id: 'J-2', created_time: '2025-05-01T09:00:00+0000', form_id: 'form-j', form_name: 'JSON form', field_data: [{ name: 'phone_number', values: ['+48 600 700 800'] }] },
  ]));
  const csv = path.join(dir, 'leads.csv');
  fs.writeFileSync(csv, 'id,created_time,ad_id,ad_name,adset_id,adset_name,campaign_id,campaign_name,form_id,form_name,is_organic,platform,full_name,email,phone_number\n'
    + 'l:C-1,2025-05-02T10:00:00+0000,ag:9,Ad 9,as:8,Set 8,c:7,Camp 7,f:form-c,CSV form,false,fb,Ola,ola@example.com,600700900\n');
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const cli = (file: string) => run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env });
  assert.equal(JSON.parse((await cli(json)).stdout), { read: 2, created: 2, completed: 0, known: 0 });
  assert.equal(JSON.parse((await cli(csv)).stdout), { read: 1, created: 1, completed: 0, known: 0 });
  assert.equal(JSON.parse((await cli(json)).stdout), { read: 2, created: 0, completed: 0, known: 2 });
  await server.settle();
  const people = await server.request('GET', '/contacts?campaign=7', { key: org.key });
  assert.equal(people.body.data.map((c: { name: string; first_source: string }) => [c.name, c.first_source]), [['Ola', 'CSV form']]);
  const missing = await cli(path.join(dir, 'nope.json')).catch((error: { code: number; stderr: string }) => error);
  assert.is((missing as { code: number }).code, 2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import: a created_time without a zone is a time in the organisation\'s zone, whatever the machine\'s zone', async ({ server }) => {
  const org = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const json = path.join(dir, 'zoneless.json');
  fs.writeFileSync(json, JSON.stringify([
    { id: 'Z-1', created_time: '2026-07-01T00:30:00', form_id: 'form-z', form_name: 'Zone form', field_data: [{ name: 'email', values: ['z1@example.com'] }] },
  ]));
  const csv = path.join(dir, 'zoneless.csv');
  // 03:30 on Warsaw's spring-forward night is summer time (+02:00); a day alone starts at its local midnight.
  fs.writeFileSync(csv, 'id,created_time,form_id,form_name,email\nl:Z-2,2026-03-29 03:30:00,f:form-z,Zone form,z2@example.com\nl:Z-3,2026-03-30,f:form-z,Zone form,z3@example.com\n');
  // The operator's machine in New York: JavaScript alone read such a time in the machine's zone.
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent', TZ: 'America/New_York' };
  for (const file of [json, csv]) await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env });
  await server.settle();
  const leads = await server.request('GET', '/leads?form=' + formSourceId(org.organizationId, 'form-z'), { key: org.key });
  const times = Object.fromEntries(leads.body.data.map((l: { platform_lead_id: string; created_at: string }) => [l.platform_lead_id, l.created_at]));
  assert.equal(times, { 'Z-1': '2026-06-30T22:30:00.000Z', 'Z-2': '2026-03-29T01:30:00.000Z', 'Z-3': '2026-03-29T22:00:00.000Z' });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import: a created_time that is not ISO 8601, or a day the calendar lacks, is refused, not read by JavaScript\'s guesses', async ({ server }) => {
  const org = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const csv = path.join(dir, 'times.csv');
  // "1" was a lead of 2001-01-01, "11/20/2026" a time in the zone of the machine running the import, 30 February 2 March.
  fs.writeFileSync(csv, 'id,created_time,form_id,email\nl:G-1,1,f:form-g,g1@example.com\nl:G-2,11/20/2026 10:00,f:form-g,g2@example.com\n'
    + 'l:G-3,2026-02-30T10:00:00+0000,f:form-g,g3@example.com\nl:G-4,2026-02-28t10:00z,f:form-g,g4@example.com\nl:G-5,2026-02-28 10:00:00+01,f:form-g,g5@example.com\n');
  const refused = await leadsImport(server, org)(csv, '--json');
  assert.is(refused.code, 2);
  assert.match(refused.stderr, 'row 2: created_time "1" is not a date-time; row 3: created_time "11/20/2026 10:00" is not a date-time; row 4: created_time "2026-02-30T10:00:00+0000" is not a date-time; nothing imported');
  const taken = await leadsImport(server, org)(csv, '--json', '--skip-invalid');
  assert.is(taken.code, 0, taken.stderr);
  await server.settle();
  const leads = await server.request('GET', '/leads?form=' + formSourceId(org.organizationId, 'form-g'), { key: org.key });
  const times = Object.fromEntries(leads.body.data.map((l: { platform_lead_id: string; created_at: string }) => [l.platform_lead_id, l.created_at]));
  assert.equal(times, { 'G-4': '2026-02-28T10:00:00.000Z', 'G-5': '2026-02-28T09:00:00.000Z' });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import: a CSV row with more filled cells than its header (an unquoted separator) is refused, not read shifted', async ({ server }) => {
  const org = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const csv = path.join(dir, 'shifted.csv');
  // Row 3's name holds the separator unquoted: its e-mail answer was "Jan", its phone the e-mail, and its person had neither.
  fs.writeFileSync(csv, 'id,created_time,form_id,full_name,email,phone_number\n'
    + 'l:K-1,2026-11-25T10:00:00+0100,f:form-k,"Nowak, Ewa",ewa.k@example.com,+48601999001,\n'
    + 'l:K-2,2026-11-25T10:00:00+0100,f:form-k,Kowalski, Jan,jan.k@example.com,+48601999002\n'
    + 'l:K-3,2026-11-25T10:00:00+0100,f:form-k,Lis,ola.k@example.com\n');
  const refused = await leadsImport(server, org)(csv, '--json');
  assert.is(refused.code, 2);
  assert.match(refused.stderr, 'row 3: 7 cells where the header has 6 columns (a separator inside a cell that is not quoted?); nothing imported');
  const taken = await leadsImport(server, org)(csv, '--json', '--skip-invalid');
  assert.is(taken.code, 0, taken.stderr);
  await server.settle();
  const leads = await server.request('GET', '/leads?form=' + formSourceId(org.organizationId, 'form-k'), { key: org.key });
  // A quoted separator, an empty cell past the header and a short row are read as before.
  assert.equal(leads.body.data.map((l: { platform_lead_id: string }) => l.platform_lead_id).sort(), ['K-1', 'K-3']);
  const contacts = await server.request('GET', '/contacts?email=ewa.k@example.com', { key: org.key });
  assert.equal(contacts.body.data.map((c: { name: string; phone: string }) => [c.name, c.phone]), [['Nowak, Ewa', '+48601999001']]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import: the Ads Manager download (UTF-16, tabs, p: before the phone) gives the person an E.164 phone', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const file = path.join(dir, 'export.csv');
  // Ads Manager writes p: before phone numbers (as l:, f:, ag: before ids) so spreadsheets keep them text.
  const text = 'id\tcreated_time\tad_id\tad_name\tadset_id\tadset_name\tcampaign_id\tcampaign_name\tform_id\tform_name\tis_organic\tplatform\tfull_name\tphone_number\n'
    + 'l:P-1\t2025-05-03T10:00:00+0000\tag:19\tAd 19\tas:18\tSet 18\tc:17\tCamp 17\tf:form-p\tPhone form\tfalse\tig\tOla P\tp:+48600711722\n';
  fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const out = await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env });
  assert.equal(JSON.parse(out.stdout), { read: 1, created: 1, completed: 0, known: 0 });
  await server.settle();
  const people = await server.request('GET', '/contacts?campaign=17', { key: org.key });
  assert.equal(people.body.data.map((c: { name: string; phone: string }) => [c.name, c.phone]), [['Ola P', '+48600711722']]);
  const byPhone = await server.request('GET', '/contacts?phone=600711722', { key: org.key });
  assert.equal(byPhone.body.data.map((c: { name: string }) => c.name), ['Ola P']);
  const lead = await server.request('GET', '/leads?campaign=17', { key: org.key });
  assert.equal(lead.body.data[0].answers.find((a: { key: string }) => a.key === 'phone_number').values, ['+48600711722']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import refuses a file it cannot take whole (a lead without form_id, an empty file): exit 2, a clear message, nothing imported', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const cli = (file: string) => run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env })
    .then(() => ({ code: 0, stdout: '', stderr: '' }), (error: { code: number; stdout: string; stderr: string }) => error);
  const noForm = path.join(dir, 'no-form.csv');
  fs.writeFileSync(noForm, 'id,created_time,form_id,full_name,email\n'
    + 'l:NF-1,2025-05-04T10:00:00+0000,f:form-nf,Ewa,nf1@example.com\n'
    + 'l:NF-2,2025-05-04T11:00:00+0000,,Iza,nf2@example.com\n');
  const refused = await cli(noForm);
  assert.is(refused.code, 2);
  assert.is(refused.stdout, '');
  assert.match(refused.stderr, /row 3: lead NF-2 without form_id/);
  const noColumn = path.join(dir, 'no-column.json');
  fs.writeFileSync(noColumn, JSON.stringify([{ id: 'NF-3', created_time: '2025-05-04T12:00:00+0000', field_data: [{ name: 'email', values: ['nf3@example.com'] }] }]));
  assert.match((await cli(noColumn)).stderr, /row 1: lead NF-3 without form_id/);
  const empty = path.join(dir, 'empty.csv');
  fs.writeFileSync(empty, '');
  const emptyRefused = await cli(empty);
  assert.is(emptyRefused.code, 2);
  assert.match(emptyRefused.stderr, /empty/);
  await server.settle();
  for (const id of ['NF-1', 'NF-2', 'NF-3']) {
    const count = await server.services.pool.query('SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id = $2', [org.organizationId, id]);
    assert.is(count.rows[0].n, 0, id);
  }
  const people = await server.request('GET', '/contacts?email=nf1@example.com', { key: org.key });
  assert.equal(people.body.data, []);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import with bad rows among good ones: every bad row named at once and nothing imported; --skip-invalid imports the others and lists the bad ones', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const cli = leadsImport(server, org);
  const lead = (id: string, more: object = {}) => ({ id, created_time: '2025-05-06T10:00:00+0000', form_id: 'form-s', field_data: [{ name: 'email', values: [`${id}@example.com`] }], ...more });
  const file = path.join(dir, 'mixed.json');
  fs.writeFileSync(file, JSON.stringify([lead('S-1'), lead('S-2', { created_time: 'yesterday' }), lead('S-3'), lead('S-4', { form_id: '' }), lead('S-5')]));
  const count = async () => (await server.services.pool.query("SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id LIKE 'S-%'", [org.organizationId])).rows[0].n;

  const refused = await cli(file, '--json');
  assert.is(refused.code, 2);
  assert.is(refused.stdout, '');
  assert.is(refused.stderr, `${file}: row 2: created_time "yesterday" is not a date-time; row 4: lead S-4 without form_id; nothing imported (--skip-invalid imports the other 3 leads and leaves these out)\n`);
  await server.settle();
  assert.is(await count(), 0);

  const skipped = await cli(file, '--skip-invalid', '--json');
  assert.is(skipped.code, 0, skipped.stderr);
  assert.equal(JSON.parse(skipped.stdout), {
    read: 5, created: 3, completed: 0, known: 0,
    refused: [
      { row: 2, platform_lead_id: 'S-2', reason: 'created_time "yesterday" is not a date-time' },
      { row: 4, platform_lead_id: 'S-4', reason: 'lead S-4 without form_id' },
    ],
  });
  await server.settle();
  assert.is(await count(), 3);
  const said = await cli(file, '--skip-invalid');
  assert.is(said.stdout, '5 leads read: 0 new, 3 already known; 2 left out: row 2: created_time "yesterday" is not a date-time; row 4: lead S-4 without form_id\n');

  // A file none of whose leads can be taken is refused with the option too: it would import nothing.
  const allBad = path.join(dir, 'all-bad.json');
  fs.writeFileSync(allBad, JSON.stringify([lead('S-6', { form_id: '' })]));
  const none = await cli(allBad, '--skip-invalid', '--json');
  assert.is(none.code, 2);
  assert.is(none.stderr, `${allBad}: row 1: lead S-6 without form_id; nothing imported (no lead of the file can be imported)\n`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import names a bad CSV row by its row in the sheet: blank rows keep their numbers and are no leads, a two-line cell is one row', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const cli = leadsImport(server, org);
  // As a spreadsheet shows it: 1 header, 2 BR-1, 3 blank, 4 BR-2, 5 separators only, 6 BR-3 (one row), 7 BR-4, 8 BR-5.
  const file = path.join(dir, 'blank-rows.csv');
  fs.writeFileSync(file, 'id,created_time,form_id,full_name,email\n'
    + 'l:BR-1,2025-05-07T10:00:00+0000,f:form-br,Ala,br1@example.com\n'
    + '\n'
    + 'l:BR-2,yesterday,f:form-br,Ola,br2@example.com\n'
    + ',,,,\n'
    + 'l:BR-3,2025-05-07T11:00:00+0000,f:form-br,"Ewa\nNowak",br3@example.com\n'
    + 'l:BR-4,2025-05-07T12:00:00+0000,,Iza,br4@example.com\n'
    + 'l:BR-5,2025-05-07T13:00:00+0000,f:form-br,Ula,br5@example.com\n');
  const refused = await cli(file, '--json');
  assert.is(refused.code, 2);
  assert.is(refused.stdout, '');
  assert.is(refused.stderr, `${file}: row 4: created_time "yesterday" is not a date-time; row 7: lead BR-4 without form_id; nothing imported (--skip-invalid imports the other 3 leads and leaves these out)\n`);
  const skipped = await cli(file, '--skip-invalid', '--json');
  assert.is(skipped.code, 0, skipped.stderr);
  assert.equal(JSON.parse(skipped.stdout), {
    read: 5, created: 3, completed: 0, known: 0,
    refused: [
      { row: 4, platform_lead_id: 'BR-2', reason: 'created_time "yesterday" is not a date-time' },
      { row: 7, platform_lead_id: 'BR-4', reason: 'lead BR-4 without form_id' },
    ],
  });
  await server.settle();
  const { rows } = await server.services.pool.query("SELECT platform_lead_id FROM leads WHERE organization_id = $1 AND platform_lead_id LIKE 'BR-%' ORDER BY 1", [org.organizationId]);
  assert.equal(rows.map((r) => r.platform_lead_id), ['BR-1', 'BR-3', 'BR-5']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import stopped by a lead the store will not take says how far it got, and the same file again adds only the rest', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const cli = (file: string) => run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env })
    .then((out) => ({ code: 0, stdout: out.stdout, stderr: out.stderr }), (error: { code: number; stdout: string; stderr: string }) => error);
  const file = path.join(dir, 'stuck.json');
  fs.writeFileSync(file, JSON.stringify([1, 2, 3, 4, 5].map((n) => ({
    id: `T-${n}`, created_time: '2025-05-07T10:00:00+0000', form_id: 'form-t', field_data: [{ name: 'email', values: [`t${n}@example.com`] }],
  }))));
  // The database refuses one lead's append: a fault of PostgreSQL's own, not a refusal of the intake.
  await server.db.pool.query(`CREATE FUNCTION refuse_lead_t3() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.event_type = 'LeadReceived' AND NEW.data->>'platformLeadId' = 'T-3' THEN RAISE EXCEPTION 'disk trouble'; END IF; RETURN NEW; END $$`);
  await server.db.pool.query('CREATE TRIGGER refuse_lead_t3 BEFORE INSERT ON es_events FOR EACH ROW EXECUTE FUNCTION refuse_lead_t3()');
  let stopped;
  try {
    stopped = await cli(file);
  } finally {
    await server.db.pool.query('DROP TRIGGER refuse_lead_t3 ON es_events; DROP FUNCTION refuse_lead_t3()');
  }
  assert.is(stopped.code, 2);
  assert.is(stopped.stdout, '');
  const said = /^.*stuck\.json: the import stopped at lead T-3 with (\d) of 5 leads in \(importing the file again adds only the others\): disk trouble\n$/.exec(stopped.stderr);
  assert.ok(said, stopped.stderr);
  const again = await cli(file);
  assert.is(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout), { read: 5, created: 5 - Number(said![1]), completed: 0, known: Number(said![1]) });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a lead whose text PostgreSQL cannot store (a NUL, a lone surrogate) is imported with it made storable, and reads back', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const json = path.join(dir, 'leads.json');
  // JSON.stringify writes both as \u escapes, as another tool's export (or the platform's answer) would.
  fs.writeFileSync(json, JSON.stringify([{
    id: 'N-1', created_time: '2025-05-03T08:00:00+0000', form_id: 'form-n', form_name: 'Form\u0000 N\ud800', ad_id: 'ad-n', ad_name: 'Ad\u0000',
    field_data: [{ name: 'full_name', values: ['Ewa\u0000 Nul'] }, { name: 'email', values: ['ewa.nul@example.com'] }, { name: 'note\u0000', values: ['a\udc00b'] }],
  }]));
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const out = await run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', json, '--json'], { env });
  assert.equal(JSON.parse(out.stdout), { read: 1, created: 1, completed: 0, known: 0 });
  await server.settle();
  const leads = await server.request('GET', '/leads?ad=ad-n', { key: org.key });
  assert.is(leads.status, 200);
  const [lead] = leads.body.data;
  assert.equal([lead.platform_lead_id, lead.form_name, lead.ad.ad_name], ['N-1', 'Form N\ufffd', 'Ad']);
  assert.equal(lead.answers.map((a: { key: string; values: string[] }) => [a.key, a.values]), [['full_name', ['Ewa Nul']], ['email', ['ewa.nul@example.com']], ['note', ['a\ufffdb']]]);
  const contact = await server.request('GET', `/contacts/${lead.contact_id}`, { key: org.key });
  assert.equal([contact.status, contact.body.name, contact.body.first_source], [200, 'Ewa Nul', 'Form N\ufffd']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import refuses an answer value that is null, a list or an object (it became "null", even as an e-mail); a number is kept as text', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  const cli = (file: string) => run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env })
    .then((out) => ({ code: 0, stdout: out.stdout, stderr: '' }), (error: { code: number; stdout: string; stderr: string }) => error);
  const lead = (id: string, values: unknown[]) => ({ id, created_time: '2025-05-05T10:00:00+0000', form_id: 'form-v', field_data: [{ name: 'email', values }] });
  for (const [value, said] of [[null, 'null'], [['a@example.com'], 'a list'], [{ v: 'a@example.com' }, 'an object']] as const) {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, JSON.stringify([lead('V-1', ['v1@example.com']), lead('V-2', [value])]));
    const refused = await cli(file);
    assert.is(refused.code, 2, said);
    assert.match(refused.stderr, `row 2: field_data email: a value is ${said}, not text`);
  }
  const numbers = path.join(dir, 'numbers.json');
  fs.writeFileSync(numbers, JSON.stringify([{ ...lead('V-3', ['v3@example.com']), field_data: [{ name: 'email', values: ['v3@example.com'] }, { name: 'budget', values: [1200, true] }] }]));
  assert.equal(JSON.parse((await cli(numbers)).stdout), { read: 1, created: 1, completed: 0, known: 0 });
  await server.settle();
  const [v3] = (await server.request('GET', '/leads?limit=100', { key: org.key })).body.data.filter((l: { platform_lead_id: string }) => l.platform_lead_id === 'V-3');
  assert.equal(v3.answers[1].values, ['1200', 'true']);
  const none = await server.services.pool.query('SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id = ANY($2)', [org.organizationId, ['V-1', 'V-2']]);
  assert.is(none.rows[0].n, 0);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ops leads import refuses values that are not a list (the e-mail was dropped and the person made without it) and names a created_time that is a number', async ({ server, org }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-'));
  const file = path.join(dir, 'odd.json');
  fs.writeFileSync(file, JSON.stringify([
    { id: 'W-1', created_time: '2025-05-06T10:00:00+0000', form_id: 'form-w', field_data: [{ name: 'email', values: ['w1@example.com'] }] },
    { id: 'W-2', created_time: '2025-05-06T10:00:00+0000', form_id: 'form-w', field_data: [{ name: 'email', values: 'w2@example.com' }] },
    { id: 'W-3', created_time: 1746525600, form_id: 'form-w', field_data: [{ name: 'email', values: ['w3@example.com'] }] },
    { id: 'W-4', created_time: '2025-05-06T10:00:00+0000', form_id: 'form-w', field_data: [{ name: 'full_name', values: null }, { name: 'note' }] },
  ]));
  const refused = await leadsImport(server, org)(file, '--json');
  assert.is(refused.code, 2);
  assert.match(refused.stderr, 'row 2: field_data email: values is text, not a list; row 3: created_time 1746525600 is not a date-time text; row 4: field_data full_name: values is null, not a list; nothing imported');
  const none = await server.services.pool.query('SELECT count(*)::int AS n FROM leads WHERE organization_id = $1 AND platform_lead_id LIKE $2', [org.organizationId, 'W-%']);
  assert.is(none.rows[0].n, 0);
  // An item without values is a question left unanswered, as before.
  fs.writeFileSync(file, JSON.stringify([{ id: 'W-5', created_time: '2025-05-06T10:00:00+0000', form_id: 'form-w', field_data: [{ name: 'email', values: ['w5@example.com'] }, { name: 'note' }] }]));
  const imported = await leadsImport(server, org)(file, '--json');
  assert.equal([imported.code, JSON.parse(imported.stdout)], [0, { read: 1, created: 1, completed: 0, known: 0 }]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test.run();
