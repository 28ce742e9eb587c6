// Conformance: every resource the API answers carries the fields of the specification's tables
// ("Resources and their fields"), each of its documented type: strings documented as empty when unknown
// are strings, "X | null" fields are present, times are ISO 8601 in UTC.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { setupConversions, type Setup } from '../conversions/support.ts';
import { importLead } from '../leads/support.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { scopeOf } from '../../commands/job/kinds.ts';

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'string[]' | 'object' | 'array';
type Field = Kind | `${Kind}?`; // '?' : the field may be null
type Shape = Record<string, Field>;

const ADSOURCE: Shape = { platform: 'string', campaign_id: 'string', campaign_name: 'string', adset_id: 'string', adset_name: 'string', ad_id: 'string', ad_name: 'string' };
const CONTACT: Shape = {
  id: 'string', name: 'string', phone: 'string', email: 'string', stage: 'string', cycle: 'integer', tags: 'string[]',
  sms_optout: 'boolean', first_source: 'string', first_ad: 'object?', owner_id: 'string?', last_activity_at: 'date-time?',
  created_at: 'date-time', updated_at: 'date-time',
};
const NOTE: Shape = { id: 'string', contact_id: 'string', kind: 'string', text: 'string', time: 'date-time' };
const LEAD: Shape = {
  id: 'string', platform_lead_id: 'string', form_id: 'string', form_name: 'string', platform_form_id: 'string',
  platform_page_id: 'string', stage: 'string', cycle: 'integer', contact_id: 'string?', fetch_status: 'string', ad: 'object?',
  stages: 'array', created_at: 'date-time?', updated_at: 'date-time',
};
const DELIVERY: Shape = {
  id: 'string', event_id: 'string', target_id: 'string', dataset_id: 'string', event_name: 'string', platform_event_id: 'string',
  mode: 'string', status: 'string', attempts: 'integer', last_error: 'string', accepted_at: 'date-time?', next_attempt_at: 'date-time?',
  created_at: 'date-time', updated_at: 'date-time',
};
const EVENT: Shape = {
  id: 'string', source_id: 'string', external_id: 'string', status: 'string', platform_event_id: 'string', event_time: 'date-time?',
  value: 'number?', currency: 'string', deliveries: 'array', created_at: 'date-time', updated_at: 'date-time',
};
const JOB: Shape = {
  number: 'integer', kind: 'string', label: 'string', status: 'string', priority: 'string', trigger: 'string', progress: 'object',
  attempts: 'integer', error: 'string', summary: 'string', run_after: 'date-time?', started_at: 'date-time?', finished_at: 'date-time?',
  created: 'date-time', updated_at: 'date-time',
};
const WEBHOOK: Shape = {
  id: 'string', url: 'string', description: 'string', events: 'string[]', active: 'boolean', last_status: 'integer', last_error: 'string',
  last_delivery_at: 'date-time?', consecutive_failures: 'integer', created_at: 'date-time', updated_at: 'date-time',
};
const STAGES = ['new', 'contacted', 'qualified', 'sold', 'rejected'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function matches(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'date-time': return typeof value === 'string' && ISO_UTC.test(value);
    case 'string[]': return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'object': return !!value && typeof value === 'object' && !Array.isArray(value);
    case 'array': return Array.isArray(value);
    default: { const never: never = kind; return never; }
  }
}

function assertShape(value: any, shape: Shape, label: string): void {
  assert.ok(value && typeof value === 'object', label);
  for (const [name, field] of Object.entries(shape)) {
    const nullable = field.endsWith('?');
    const kind = (nullable ? field.slice(0, -1) : field) as Kind;
    assert.ok(name in value, `${label}: ${name} is missing from ${JSON.stringify(value)}`);
    const ok = (nullable && value[name] === null) || matches(value[name], kind);
    assert.ok(ok, `${label}.${name}: ${JSON.stringify(value[name])} is not ${field}`);
  }
}

interface Ctx { server: TestServer; org: TestOrg; conv: Setup }
const test = suite<Ctx>('Conformance: every resource has the fields of the specification');

test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.conv = await setupConversions(ctx.server, { kind: 'shop', status: 'paid', eventName: 'Lead', targets: [{ datasetId: '111222333', mode: 'test', testCode: 'TEST1' }] });
  ctx.org = ctx.conv;
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('Contact, Note and StageResult', async (ctx) => {
  const key = ctx.org.key;
  const created = await ctx.server.request('POST', '/contacts', { key, body: { name: 'Ada Shape', email: 'ada@example.com', tags: ['vip'] } });
  assert.is(created.status, 201);
  assertShape(created.body, CONTACT, 'POST /contacts');
  assert.is(created.body.stage, 'new');
  assert.is(created.body.cycle, 1);
  assert.is(created.body.phone, '');
  const id = created.body.id;
  assertShape((await ctx.server.request('GET', `/contacts/${id}`, { key })).body, CONTACT, 'GET /contacts/{id}');
  assertShape((await ctx.server.request('PATCH', `/contacts/${id}`, { key, body: { name: 'Ada S.' } })).body, CONTACT, 'PATCH /contacts/{id}');
  const list = await ctx.server.request('GET', '/contacts', { key });
  for (const item of list.body.data) assertShape(item, CONTACT, 'GET /contacts item');
  const note = await ctx.server.request('POST', `/contacts/${id}/notes`, { key, body: { text: 'Called back', kind: 'call' } });
  assert.is(note.status, 201);
  assertShape(note.body, NOTE, 'Note');
  assert.is(note.body.contact_id, id);
  const stage = await ctx.server.request('POST', `/contacts/${id}/stage`, { key, body: { stage: 'sold', value: 99.5, currency: 'PLN' } });
  assert.is(stage.status, 200);
  assert.equal(Object.keys(stage.body).sort(), ['contact', 'leads_without_send', 'platform_events_queued']);
  assertShape(stage.body.contact, CONTACT, 'StageResult.contact');
  assert.ok(Number.isInteger(stage.body.platform_events_queued) && Number.isInteger(stage.body.leads_without_send));
  assertShape((await ctx.server.request('POST', `/contacts/${id}/tags`, { key, body: { add: ['x'] } })).body, CONTACT, 'tags');
  assertShape((await ctx.server.request('POST', `/contacts/${id}/sms-optout`, { key, body: { sms_optout: true } })).body, CONTACT, 'sms-optout');
});

test('Lead and AdSource, with answers only for leads:answers', async (ctx) => {
  await importLead(ctx.server, ctx.org, { id: '9100200300', email: 'lead.shape@example.com', name: 'Lead Shape', ad: 'ad-7', adset: 'as-7', campaign: 'c-7', budget: '5000' });
  const reader = await ctx.server.newKey(ctx.org.organizationId, ['leads:read', 'contacts:read']);
  const withAnswers = await ctx.server.request('GET', '/leads', { key: ctx.org.key });
  const without = await ctx.server.request('GET', '/leads', { key: reader.key });
  const lead = withAnswers.body.data.find((l: any) => l.platform_lead_id === '9100200300');
  assertShape(lead, LEAD, 'Lead');
  assert.ok(STAGES.includes(lead.stage));
  assert.is(lead.fetch_status, 'ready');
  assertShape(lead.ad, ADSOURCE, 'Lead.ad');
  for (const item of lead.stages) assertShape(item, { stage: 'string', at: 'date-time', platform_event_queued: 'boolean' }, 'Lead.stages[]');
  assert.ok(Array.isArray(lead.answers) && lead.answers.length > 0);
  for (const answer of lead.answers) assertShape(answer, { key: 'string', label: 'string', values: 'string[]' }, 'LeadAnswer');
  const bare = without.body.data.find((l: any) => l.platform_lead_id === '9100200300');
  assertShape(bare, LEAD, 'Lead without answers');
  assert.not.ok('answers' in bare);
  assert.not.ok('answers' in (await ctx.server.request('GET', `/leads/${lead.id}`, { key: reader.key })).body);
  const contact = await ctx.server.request('GET', `/contacts/${lead.contact_id}`, { key: reader.key });
  assertShape(contact.body, CONTACT, 'Contact of a lead');
  assertShape(contact.body.first_ad, ADSOURCE, 'Contact.first_ad');
});

test('the 202 of POST /events, Event and Delivery', async (ctx) => {
  const key = ctx.org.key;
  const accepted = await ctx.server.request('POST', '/events', {
    key, body: { source: ctx.conv.sourceId, external_id: 'order-shape', status: 'paid', consent: true, email: 'buyer@example.com' },
  });
  assert.is(accepted.status, 202);
  assert.equal(Object.keys(accepted.body).sort(), ['deliveries_created', 'duplicates', 'event_id', 'sending_enabled']);
  assert.type(accepted.body.event_id, 'string');
  assert.is(accepted.body.deliveries_created, 1);
  assert.is(accepted.body.duplicates, 0);
  assert.is(accepted.body.sending_enabled, false);
  const event = await ctx.server.request('GET', `/events/${accepted.body.event_id}`, { key });
  assertShape(event.body, EVENT, 'Event');
  assert.not.ok('payload' in event.body);
  assert.is(event.body.deliveries.length, 1);
  assertShape(event.body.deliveries[0], DELIVERY, 'Event.deliveries[]');
  const deliveries = await ctx.server.request('GET', '/deliveries', { key });
  assert.ok(deliveries.body.data.length >= 1);
  for (const item of deliveries.body.data) assertShape(item, DELIVERY, 'GET /deliveries item');
  for (const item of (await ctx.server.request('GET', '/events', { key })).body.data) assertShape(item, EVENT, 'GET /events item');
});

test('Job', async (ctx) => {
  const queued = await enqueueJob(ctx.server.services, {
    organizationId: ctx.org.organizationId, kind: 'lead_import', scope: scopeOf.page('page-shape'), params: {}, trigger: 'operator',
  }, { organizationId: ctx.org.organizationId, actor: 'test' });
  await ctx.server.settle();
  const job = await ctx.server.request('GET', `/jobs/${queued.number}`, { key: ctx.org.key });
  assert.is(job.status, 200);
  assertShape(job.body, JOB, 'Job');
  assertShape(job.body.progress, { done: 'integer', text: 'string' }, 'Job.progress');
  for (const item of (await ctx.server.request('GET', '/jobs', { key: ctx.org.key })).body.data) assertShape(item, JOB, 'GET /jobs item');
});

test('Webhook and WebhookCreated: the secret only in the create and rotate answers', async (ctx) => {
  const key = ctx.org.key;
  const created = await ctx.server.request('POST', '/webhooks', { key, body: { url: 'https://example.com/shape', events: ['lead.created'] } });
  assert.is(created.status, 201);
  assertShape(created.body, { ...WEBHOOK, secret: 'string' }, 'WebhookCreated');
  const id = created.body.id;
  const read = await ctx.server.request('GET', `/webhooks/${id}`, { key });
  assertShape(read.body, WEBHOOK, 'Webhook');
  assert.not.ok('secret' in read.body);
  const patched = await ctx.server.request('PATCH', `/webhooks/${id}`, { key, body: { active: false } });
  assertShape(patched.body, WEBHOOK, 'PATCH Webhook');
  assert.not.ok('secret' in patched.body);
  for (const item of (await ctx.server.request('GET', '/webhooks', { key })).body.data) assert.not.ok('secret' in item);
  const rotated = await ctx.server.request('POST', `/webhooks/${id}/rotate-secret`, { key });
  assert.is(rotated.status, 200);
  assertShape(rotated.body, { ...WEBHOOK, secret: 'string' }, 'rotate-secret');
  assert.is.not(rotated.body.secret, created.body.secret);
  assert.is(rotated.body.secret.slice(0, 4), created.body.secret.slice(0, 4));
});

test('key description and the two reports carry their documented top-level fields', async (ctx) => {
  const me = await ctx.server.request('GET', '/me', { key: ctx.org.key });
  assertShape(me.body.organization, { id: 'string', name: 'string' }, 'me.organization');
  assertShape(me.body.key, { id: 'string', name: 'string', prefix: 'string', scopes: 'string[]', expires_at: 'date-time?' }, 'me.key');
  assert.is(me.body.rate_limit.per_minute, 120);
  const campaign = await ctx.server.request('GET', '/campaigns/report', { key: ctx.org.key });
  assertShape(campaign.body, { from: 'string', to: 'string', level: 'string', totals: 'array', rows: 'array', organic: 'object', syncs: 'array', maturing: 'boolean', unattributed: 'integer' }, 'campaign report');
  assert.is(campaign.body.level, 'campaign');
  assert.match(campaign.body.from, /^\d{4}-\d{2}-\d{2}$/);
  const creative = await ctx.server.request('GET', '/creatives/report', { key: ctx.org.key });
  assertShape(creative.body, { from: 'string', to: 'string', weeks: 'array', rows: 'array', totals: 'array', syncs: 'array', unattributed: 'integer' }, 'creative report');
});

test('a 404 for an id or number in the path names it in details, on every resource', async (ctx) => {
  const key = ctx.org.key;
  const missing: [string, Record<string, unknown>][] = [
    ['/contacts/no-such-id', { contact_id: 'no-such-id' }],
    ['/leads/no-such-id', { lead_id: 'no-such-id' }],
    ['/events/no-such-id', { event_id: 'no-such-id' }],
    ['/jobs/987654', { number: 987654 }],
    ['/webhooks/no-such-id', { webhook_id: 'no-such-id' }],
  ];
  for (const [path, details] of missing) {
    const res = await ctx.server.request('GET', path, { key });
    assert.is(res.status, 404, path);
    assert.equal([res.body.error.code, res.body.error.details], ['not_found', details], path);
  }
});

test.run();
