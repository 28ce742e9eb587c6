// Every projector rebuilt from the store equals the live read model, row for row, after a realistic
// workload driven through the public API, the CLI commands' handlers and the workers; the API answers the
// same before and after; and a rebuild while writes continue ends equal to the live read model too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { leadgenWebhookBody, signLeadgenPayload } from '../../ops/sandbox/leadgen.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { connectAdAccount } from '../../commands/adaccount/handlers.ts';
import { configureRoundRobin } from '../../commands/owners/handlers.ts';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { createSource } from '../../commands/source/handlers.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import { addNote, createContact } from '../../commands/contact/handlers.ts';
import { changeStage } from '../../commands/contact/stage.ts';
import { acceptConversion } from '../../commands/conversion/handlers.ts';
import { ALL_SCOPES } from '../../commands/shared/scopes.ts';
import { cancelJob, enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { addDays, dayIn } from '../../src/processes/jobs/kinds/days.ts';
import { projectors } from '../../src/projections/all.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { platformLead } from '../leads/support.ts';

const SECRET = 'app-secret-for-rebuilds';
const TZ = 'Europe/Warsaw';
const ACCOUNT = 'act_2001';

interface Ctx { server: TestServer; sandbox: Sandbox; receiver: Receiver; org: TestOrg; reader: string; sourceId: string; contacts: string[]; leads: string[]; events: string[]; jobs: number[]; hooks: string[] }
const test = suite<Ctx>('Projections: every read model rebuilt equals the live one after a realistic workload');

const meta = (org: TestOrg) => ({ organizationId: org.organizationId, actor: 'test' });
const recent = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();

async function ok(server: TestServer, method: string, path: string, key: string, body?: unknown, statuses = [200, 201, 202, 204]) {
  const res = await server.request(method, path, { key, body });
  if (!statuses.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const terminal = (status: string) => ['done', 'failed', 'cancelled'].includes(status);
async function jobsSettled(server: TestServer, org: TestOrg) {
  // The read model first: a job queued a moment ago (or a follow-up of a finished one) must be in it.
  await eventually('every job finished', async () => {
    await server.settle();
    const { rows } = await server.services.pool.query<{ status: string }>('SELECT status FROM jobs WHERE organization_id = $1', [org.organizationId]);
    return rows.length > 0 && rows.every((r) => terminal(r.status));
  }, 40_000);
}

async function deliveriesSettled(server: TestServer) {
  await eventually('every delivery finished', async () => {
    const { rows } = await server.services.pool.query<{ n: string }>(`SELECT count(*) AS n FROM deliveries_view WHERE status IN ('pending', 'sending', 'retry')`);
    return rows[0].n === '0';
  }, 30_000);
  await eventually('every webhook push finished', async () => {
    // A paused subscription's pushes wait in the queue until it resumes: only the active ones must drain.
    await server.settle();
    const { rows } = await server.services.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM webhook_queue q JOIN webhooks w ON w.id = q.webhook_id WHERE w.active');
    return rows[0].n === '0';
  }, 30_000);
}

test.before(async (ctx) => {
  try { await given(ctx); } catch (error) { console.error(error); throw error; }
});

async function given(ctx: Ctx) {
  ctx.sandbox = await startSandbox();
  ctx.receiver = await startReceiver((push, res) => res.writeHead(push.path === '/down' ? 500 : 204).end());
  ctx.server = await startTestServer({
    PLATFORM_API_URL: ctx.sandbox.url, PLATFORM_APP_SECRET: SECRET, PLATFORM_VERIFY_TOKEN: 'verify',
    DELIVERY_RETRY_SCHEDULE: '100ms,200ms', WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', JOB_POLL: '50ms', JOB_RETRY_SCHEDULE: '100ms', JOB_MAX_ATTEMPTS: '2',
  });
  const { server, sandbox } = ctx;
  const services = server.services;
  const org = ctx.org = await server.newOrganization({ timezone: TZ, currency: 'PLN' });
  // The API answers are read with a key of their own: the workload's requests count against the writer's limit.
  ctx.reader = (await server.newKey(org.organizationId, [...ALL_SCOPES])).key;
  const now = new Date();
  const today = dayIn(TZ, now);
  ctx.contacts = []; ctx.leads = []; ctx.events = []; ctx.jobs = []; ctx.hooks = [];

  // Owners take contacts in turn.
  await configureRoundRobin(services.store, { organizationId: org.organizationId, users: ['ola', 'piotr'] }, now);

  // Webhooks: one pushed to, one failing, one paused, one deleted.
  const hook = (path: string, events: string[]) => ok(server, 'POST', '/webhooks', org.key, { url: ctx.receiver.url(path), events, description: path });
  const pushed = await hook('/in', ['contact.created', 'contact.stage_changed', 'lead.created', 'delivery.failed']);
  const failing = await hook('/down', ['contact.created']);
  const paused = await hook('/paused', ['lead.created']);
  const deleted = await hook('/gone', ['contact.created']);
  ctx.hooks.push(pushed.id, failing.id, paused.id);
  await ok(server, 'PATCH', `/webhooks/${paused.id}`, org.key, { active: false, description: 'paused for now' });
  await ok(server, 'POST', `/webhooks/${pushed.id}/test`, org.key);
  await ok(server, 'POST', `/webhooks/${pushed.id}/rotate-secret`, org.key);
  await ok(server, 'DELETE', `/webhooks/${deleted.id}`, org.key);

  // A page with a form: connecting it backfills its leads (an import job), then a leadgen notice fetches one.
  sandbox.seedPage({ id: 'page-1', name: 'Clinic' });
  sandbox.seedForm({ id: 'form-1', pageId: 'page-1', name: 'Free consultation' });
  const ad = (n: number) => ({ ad_id: `ad-${n}`, ad_name: `Ad ${n}`, adset_id: 'as-1', adset_name: 'Set 1', campaign_id: 'camp-1', campaign_name: 'Camp 1' });
  sandbox.seedLead({ id: 'pl-1', formId: 'form-1', createdTime: recent(3600), platform: 'fb', ad: ad(1), answers: { email: 'zofia@example.com', full_name: 'Zofia' } });
  sandbox.seedLead({ id: 'pl-2', formId: 'form-1', createdTime: recent(3000), platform: 'ig', answers: { phone_number: '+48601000002', full_name: 'Organic' } });
  await connectPage(services.store, { organizationId: org.organizationId, pageId: 'page-1', token: 'page-token' }, services.secrets.encryptionKey, now);
  await jobsSettled(server, org);
  sandbox.seedLead({ id: 'pl-3', formId: 'form-1', createdTime: recent(600), platform: 'fb', ad: ad(2), answers: { email: 'marek@example.com', phone_number: '+48601000003', full_name: 'Marek' } });
  const raw = JSON.stringify(leadgenWebhookBody({ pageId: 'page-1', formId: 'form-1', leadId: 'pl-3', createdTime: recent(600) }));
  const notice = await fetch(`${server.origin}/platform/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(SECRET, raw) }, body: raw });
  assert.is(notice.status, 200);
  // An import of a lead of an export, as the CLI does.
  await receiveLead(services, { organizationId: org.organizationId, lead: platformLead({ id: 'pl-4', formId: 'form-2', formName: 'Export form', email: 'ewa@example.com', created: recent(7200), ad: 'ad-3', campaign: 'camp-1', adset: 'as-2' }), via: 'import' }, meta(org));
  await eventually('the fetched lead', async () => (await services.pool.query(`SELECT 1 FROM leads WHERE organization_id = $1`, [org.organizationId])).rowCount! >= 4, 20_000);

  // Contacts: created, edited, tagged, noted, SMS-blocked, stages over two cycles with values, merged in a chain.
  const created = [];
  for (let i = 0; i < 6; i++) created.push(await ok(server, 'POST', '/contacts', org.key, { name: `Person ${i}`, phone: `+4860200000${i}`, email: `p${i}@example.com`, tags: ['vip', `t${i}`] }));
  const [a, b, c, d, e, f] = created.map((x: any) => x.id as string);
  ctx.contacts.push(a, b, c, d, e, f);
  await ok(server, 'PATCH', `/contacts/${a}`, org.key, { name: 'Anna Nowak', email: 'anna@example.com', tags: ['vip', 'gold'] });
  await ok(server, 'PATCH', `/contacts/${b}`, org.key, { email: '' });
  await ok(server, 'POST', `/contacts/${a}/tags`, org.key, { add: ['new-tag'], remove: ['vip'] });
  await ok(server, 'POST', `/contacts/${a}/notes`, org.key, { text: 'Called back', kind: 'call' });
  await ok(server, 'POST', `/contacts/${b}/notes`, org.key, { text: 'Met', kind: 'meeting', time: recent(86400) });
  await ok(server, 'POST', `/contacts/${c}/sms-optout`, org.key, { sms_optout: true });
  await ok(server, 'POST', `/contacts/${d}/sms-optout`, org.key, { sms_optout: true });
  await ok(server, 'POST', `/contacts/${d}/sms-optout`, org.key, { sms_optout: false });
  await ok(server, 'POST', `/contacts/${a}/stage`, org.key, { stage: 'contacted' });
  await ok(server, 'POST', `/contacts/${a}/stage`, org.key, { stage: 'sold', value: 120.5, currency: 'PLN' });
  await ok(server, 'POST', `/contacts/${a}/stage`, org.key, { stage: 'new' });
  await ok(server, 'POST', `/contacts/${a}/stage`, org.key, { stage: 'sold', value: 80 });
  await ok(server, 'POST', `/contacts/${b}/stage`, org.key, { stage: 'rejected' });
  const leadsNow = await ok(server, 'GET', '/leads?limit=100', org.key);
  for (const lead of leadsNow.data) {
    ctx.leads.push(lead.id);
    await ok(server, 'POST', `/contacts/${lead.contact_id}/stage`, org.key, { stage: 'qualified' });
  }
  const marek = leadsNow.data.find((l: any) => l.platform_lead_id === 'pl-3')?.contact_id ?? leadsNow.data[0].contact_id;
  await ok(server, 'POST', `/contacts/${marek}/stage`, org.key, { stage: 'sold', value: 300, currency: 'EUR' });
  await mergeContacts(services, { fromId: e, intoId: f }, new Date());
  await mergeContacts(services, { fromId: f, intoId: c }, new Date());
  await mergeContacts(services, { fromId: marek, intoId: d }, new Date());
  await ok(server, 'POST', `/contacts/${d}/stage`, org.key, { stage: 'contacted' });

  // Conversions: a source with a live target that accepts, one that is flaky (retried), one that refuses.
  const source = await createSource(services.store, { organizationId: org.organizationId, kind: 'shop', name: 'Shop' }, now);
  ctx.sourceId = source.id;
  for (const [dataset, mode] of [['4001', 'accept'], ['4002', 'flaky'], ['4003', 'refuse']] as const) {
    sandbox.setDatasetBehaviour(dataset, { mode, failures: 1 } as any);
    const target = await createTarget(services.store, services.secrets.encryptionKey, { organizationId: org.organizationId, datasetId: dataset, token: 'EAAB-token', mode: 'live', testCode: null }, now);
    await createFlow(services.store, { sourceId: source.id, targetId: target.id, eventName: 'Purchase', trigger: { kind: 'status', status: 'paid' } }, now);
  }
  await server.settle();
  const orderTime = recent(60);
  for (let i = 0; i < 4; i++) {
    const posted = await ok(server, 'POST', '/events', org.key, { source: source.id, external_id: `order-${i}`, status: 'paid', consent: true, email: `buyer${i}@example.com`, value: 10 + i, currency: 'PLN', event_time: orderTime });
    ctx.events.push(posted.event_id);
  }
  await ok(server, 'POST', '/events', org.key, { source: source.id, external_id: 'order-0', status: 'paid', consent: true, email: 'buyer0@example.com', value: 10, currency: 'PLN', event_time: orderTime });
  ctx.events.push((await ok(server, 'POST', '/events', org.key, { source: source.id, external_id: 'lead-1', status: 'open', consent: true, phone: '+48601999999' })).event_id);

  // Ad spend and creatives: connecting an account backfills its spend and syncs its creatives.
  sandbox.seedAdAccount({ id: ACCOUNT, name: 'Shop ads', currency: 'PLN', timezoneName: TZ });
  sandbox.generateInsights(ACCOUNT, { ads: 6, days: 20, since: addDays(today, -19) });
  sandbox.seedCreative({ id: 'cr-video', videoId: 'vid-1', title: 'Spring' });
  sandbox.seedCreative({ id: 'cr-image', imageHash: 'IMG1', title: 'Sale' });
  for (let a = 0; a < 6; a++) sandbox.seedAd({ id: String(140_000_000_000 + 100_000 + a), creativeId: a % 2 ? 'cr-video' : 'cr-image' });
  await connectAdAccount(services, { organizationId: org.organizationId, account: ACCOUNT, token: 'ads-token' }, meta(org));

  // Jobs: a sheet sync that fails (no such sheet) and one cancelled before it runs.
  const sheet = await createSource(services.store, { organizationId: org.organizationId, kind: 'spreadsheet', name: 'Orders', csvUrl: `${sandbox.url}/sheets/missing.csv`, columns: { external_id: 'Order', status: 'Stage', email: 'E-mail' } } as any, now);
  const later = await enqueueJob(services, { organizationId: org.organizationId, kind: 'sheets_sync', scope: `source:${sheet.id}`, trigger: 'operator', runAfter: new Date(Date.now() + 3_600_000).toISOString() }, meta(org));
  await cancelJob(services, org.organizationId, later.number, meta(org));

  await jobsSettled(server, org);
  await deliveriesSettled(server);
  await jobsSettled(server, org);
  await server.settle();
}
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
  await ctx.receiver.close();
});

/**
 * Columns that legitimately differ between a live row and its rebuilt twin, each with its reason. None does
 * today: times come from the events, not from when a row was written, so every column of every table compares.
 */
const EXCLUDED: Record<string, string[]> = {};

async function dumpTable(server: TestServer, table: string): Promise<string[]> {
  const { rows } = await server.services.pool.query(`SELECT * FROM ${table}`);
  const skip = EXCLUDED[table] ?? [];
  return rows.map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !skip.includes(k)).sort(([x], [y]) => x.localeCompare(y))))).sort();
}

async function dumpAll(server: TestServer): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const p of projectors) for (const table of p.tables) out[table] = await dumpTable(server, table);
  return out;
}

function diff(live: Record<string, string[]>, rebuilt: Record<string, string[]>): string[] {
  const out: string[] = [];
  for (const table of Object.keys(live)) {
    const a = new Set(live[table]);
    const b = new Set(rebuilt[table]);
    for (const row of live[table]) if (!b.has(row)) out.push(`${table} live only: ${row}`);
    for (const row of rebuilt[table]) if (!a.has(row)) out.push(`${table} rebuilt only: ${row}`);
  }
  return out;
}

/** `ops projections rebuild --all`: every projector in turn; a failure names the projector. */
async function rebuildAll(server: TestServer): Promise<void> {
  for (const projector of projectors) {
    await rebuildProjector(server.services.pool, server.services.store, projector).catch((error) => {
      throw new Error(`rebuilding ${projector.name}: ${error.message}`, { cause: error });
    });
  }
}

async function apiAnswers(ctx: Ctx): Promise<unknown[]> {
  const { server } = ctx;
  const to = dayIn(TZ, new Date());
  const paths = [
    '/me', '/contacts?limit=100', '/contacts?tag=vip', '/contacts?stage=sold', '/leads?limit=100', '/events?limit=100', '/deliveries?limit=100',
    '/jobs?limit=100', '/webhooks', `/campaigns/report?to=${to}`, `/campaigns/report?to=${to}&level=ad`, `/creatives/report?to=${to}`,
    ...ctx.contacts.map((id) => `/contacts/${id}`), ...ctx.leads.map((id) => `/leads/${id}`), ...ctx.events.map((id) => `/events/${id}`),
    ...ctx.hooks.flatMap((id) => [`/webhooks/${id}`, `/webhooks/${id}/deliveries`]),
  ];
  const out = [];
  for (const path of paths) {
    const res = await server.request('GET', path, { key: ctx.reader });
    const body = res.body && typeof res.body === 'object' ? { ...res.body, as_of: undefined } : res.body;
    out.push([path, res.status, body]);
  }
  return out;
}

test('every projector rebuilt equals the live read model, row for row, and the API answers the same', async (ctx) => {
  const { server } = ctx;
  const live = await dumpAll(server);
  for (const table of ['contacts', 'leads', 'events_view', 'deliveries_view', 'jobs', 'webhooks', 'webhook_attempts', 'report_spend_facts', 'report_leads', 'contact_notes']) {
    // The jobs say why a sync wrote nothing.
    assert.ok(live[table].length > 0, `${table} has rows; jobs: ${live.jobs.join('\n')}`);
  }
  const answers = await apiAnswers(ctx);
  await rebuildAll(server);
  await server.settle();
  assert.equal(diff(live, await dumpAll(server)), []);
  assert.equal(await apiAnswers(ctx), answers);
});

/** Contacts made and moved, notes, leads imported and conversions accepted, through the handlers, until stopped. */
function keepWriting(ctx: Ctx): { stop(): Promise<number> } {
  const { server, org } = ctx;
  const services = server.services;
  let stopping = false;
  let written = 0;
  const lane = async (lane: number) => {
    for (let i = 0; !stopping; i++) {
      const tag = `${lane}-${i}`;
      const contact = await createContact(services, { organizationId: org.organizationId, name: `Racer ${tag}`, email: `racer.${tag}@example.com` }, meta(org));
      await changeStage(services, { organizationId: org.organizationId, contactId: contact.contactId, stage: i % 2 ? 'sold' : 'contacted', value: i % 2 ? 10 + i : null, currency: i % 4 === 1 ? 'EUR' : null }, meta(org));
      await addNote(services, { organizationId: org.organizationId, contactId: contact.contactId, kind: 'note', text: `note ${tag}` } as any, meta(org));
      await receiveLead(services, { organizationId: org.organizationId, lead: platformLead({ id: `race-${tag}`, formId: 'form-race', email: `lead.${tag}@example.com`, created: recent(120), ad: `ad-${i % 3}`, campaign: 'camp-race' }), via: 'import' }, meta(org));
      await acceptConversion(services, { organizationId: org.organizationId, sourceId: ctx.sourceId, trigger: { kind: 'status', status: 'paid' }, externalId: `race-${tag}`, email: `buyer.${tag}@example.com`, value: 5 + i, currency: 'PLN', consent: true } as any, meta(org));
      written++;
    }
  };
  // A lane that fails stops them all; its error is thrown by stop(). Three lanes: with round robin on, a lead's
  // new person and a contact create race for the owners' turn (the intake once lost it more times than it retried).
  const lanes = [0, 1, 2].map((n) => lane(n).catch((error) => { stopping = true; return error as Error; }));
  return {
    async stop() {
      stopping = true;
      const failed = (await Promise.all(lanes)).find((e) => e instanceof Error);
      if (failed) throw failed;
      return written;
    },
  };
}

test('every projector rebuilt while writes continue ends equal to a rebuild made at rest', async (ctx) => {
  const { server } = ctx;
  // Another reader key: two rounds of reads by one key would pass its 120 requests a minute.
  ctx.reader = (await server.newKey(ctx.org.organizationId, [...ALL_SCOPES])).key;
  const writing = keepWriting(ctx);
  await rebuildAll(server);
  const written = await writing.stop();
  assert.ok(written > 3, `${written} rounds of writes during the rebuilds`);
  await deliveriesSettled(server);
  await jobsSettled(server, ctx.org);
  await server.settle();
  const live = await dumpAll(server);
  const answers = await apiAnswers(ctx);
  await rebuildAll(server);
  await server.settle();
  assert.equal(diff(live, await dumpAll(server)), []);
  assert.equal(await apiAnswers(ctx), answers);
});

test.run();
