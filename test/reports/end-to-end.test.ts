// The reports from the outside: spend from the sandbox's insights through the ad_spend job, leads through the
// leadgen webhook and the lead fetch, stages through the API, a merge; every figure computed by hand first.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { deliverLeadgen } from '../../ops/sandbox/leadgen.ts';
import type { InsightSeed } from '../../ops/sandbox/types.ts';
import { connectPage } from '../../commands/page/handlers.ts';
import { connectAdAccount } from '../../commands/adaccount/handlers.ts';
import { mergeContacts } from '../../commands/contact/merge.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { finishedJobs } from '../jobs/support/jobs.ts';
import { settleReports } from './support.ts';

const SECRET = 'app-secret-e2e';
const META = (org: TestOrg) => ({ organizationId: org.organizationId, actor: 'test' });
const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg; contacts: Map<string, string> }>('Reports end to end: sandbox spend, webhook leads, stages by the API');

const A = { campaign_id: 'cA', campaign_name: 'Camp A', adset_id: 'sA', adset_name: 'Set A' };
const B = { campaign_id: 'cB', campaign_name: 'Camp B', adset_id: 'sB', adset_name: 'Set B' };
const row = (date: string, ad: typeof A, ad_id: string, spend: number, impressions: number, clicks: number, reach: number, formLeads: number, pixelLeads = 0): InsightSeed =>
  ({ date, ...ad, ad_id, ad_name: `Ad ${ad_id}`, spend, impressions, clicks, reach, formLeads, pixelLeads });
const adOf = (ad: typeof A, ad_id: string) => ({ ...ad, ad_id, ad_name: `Ad ${ad_id}` });

async function syncSpend(ctx: { server: TestServer; org: TestOrg }, account: string, since: string, until: string, done: number) {
  await enqueueJob(ctx.server.services, { organizationId: ctx.org.organizationId, kind: 'ad_spend', scope: `account:${account}`, trigger: 'operator', params: { since, until } }, META(ctx.org));
  const [job] = await finishedJobs(ctx.server.services, ctx.org.organizationId, 'ad_spend', done);
  assert.is(job.status, 'done', job.error);
}

/** Delivers the lead by the webhook and waits until it is fetched; returns its contact id. */
async function lead(ctx: { server: TestServer; sandbox: Sandbox; org: TestOrg }, id: string, createdTime: string, email: string, ad: ReturnType<typeof adOf> | null, cycle = 1) {
  ctx.sandbox.seedLead({ id, formId: 'form-e2e', createdTime, platform: 'fb', ...(ad ? { ad } : {}), answers: { email, full_name: `Person ${id}` } });
  const sent = await deliverLeadgen(`${ctx.server.origin}/platform/webhook`, SECRET, { pageId: 'page-e2e', formId: 'form-e2e', leadId: id, createdTime });
  assert.is(sent.status, 200, sent.body);
  return eventually(`lead ${id} fetched`, async () => {
    const { rows } = await ctx.server.services.pool.query<{ contact_id: string | null; fetch_status: string; cycle: number }>(
      'SELECT contact_id, fetch_status, cycle FROM leads WHERE organization_id = $1 AND platform_lead_id = $2', [ctx.org.organizationId, id]);
    return rows[0]?.fetch_status === 'ready' && rows[0].contact_id && rows[0].cycle === cycle ? rows[0].contact_id : undefined;
  });
}

async function stage(ctx: { server: TestServer; org: TestOrg }, contactId: string, body: Record<string, unknown>) {
  const res = await ctx.server.request('POST', `/contacts/${contactId}/stage`, { key: ctx.org.key, body });
  assert.is(res.status, 200, JSON.stringify(res.body));
}

test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, PLATFORM_APP_SECRET: SECRET, JOB_POLL: '50ms' });
  ctx.org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN' });
  const { sandbox, server, org } = ctx;
  sandbox.seedAdAccount({ id: 'act_2001', name: 'PL', currency: 'PLN', timezoneName: 'Europe/Warsaw' });
  sandbox.seedAdAccount({ id: 'act_2002', name: 'US', currency: 'EUR', timezoneName: 'America/New_York' });
  sandbox.seedInsights('act_2001', [
    row('2026-03-01', A, 'a1', 10, 100, 1, 90, 0), row('2026-03-02', A, 'a1', 100, 2000, 40, 1000, 3),
    row('2026-03-03', A, 'a1', 50.5, 1000, 10, 800, 1), row('2026-03-02', A, 'a2', 33.33, 500, 5, 400, 0), row('2026-03-09', A, 'a1', 70, 700, 7, 600, 2),
  ]);
  sandbox.seedInsights('act_2002', [row('2026-03-08', B, 'b1', 20, 1000, 20, 900, 1, 2)]);
  sandbox.seedCreative({ id: 'cr1', videoId: 'v1', title: 'Cut 1' });
  sandbox.seedCreative({ id: 'cr2', videoId: 'v1', title: 'Cut 2' });
  sandbox.seedCreative({ id: 'cr3', imageHash: 'h1', title: 'Still' });
  for (const [ad, creativeId] of [['a1', 'cr1'], ['a2', 'cr2'], ['b1', 'cr3']]) sandbox.seedAd({ id: ad, creativeId });
  sandbox.seedPage({ id: 'page-e2e' });
  sandbox.seedForm({ id: 'form-e2e', pageId: 'page-e2e', name: 'Form' });
  await connectPage(server.services.store, { organizationId: org.organizationId, pageId: 'page-e2e', token: 'tok' }, server.services.secrets.encryptionKey, new Date());
  await finishedJobs(server.services, org.organizationId, 'lead_import', 1);
  // Each connection's backfill (the last 90 days: none of March) first, so the operator's syncs are not folded into it.
  await connectAdAccount(server.services, { organizationId: org.organizationId, account: 'act_2001', token: 'tok' }, META(org));
  await finishedJobs(server.services, org.organizationId, 'ad_spend', 1);
  await connectAdAccount(server.services, { organizationId: org.organizationId, account: 'act_2002', token: 'tok' }, META(org));
  await finishedJobs(server.services, org.organizationId, 'ad_spend', 2);
  await syncSpend(ctx, 'act_2001', '2026-03-01', '2026-03-09', 3);
  await syncSpend(ctx, 'act_2002', '2026-03-01', '2026-03-09', 4);
  await finishedJobs(server.services, org.organizationId, 'creative_sync', 2);

  const c = (ctx.contacts = new Map<string, string>());
  c.set('p1', await lead(ctx, '501', '2026-03-02T10:00:00Z', 'p1@example.com', adOf(A, 'a1')));
  c.set('p2', await lead(ctx, '502', '2026-03-02T22:30:00Z', 'p2@example.com', adOf(A, 'a1'))); // 23:30 in Warsaw: 2 March
  await lead(ctx, '503', '2026-03-08T23:30:00Z', 'p3@example.com', adOf(A, 'a1')); // 00:30 on 9 March: after the range
  c.set('p4', await lead(ctx, '504', '2026-03-01T23:30:00Z', 'p4@example.com', adOf(A, 'a2'))); // 00:30 on 2 March: in it
  c.set('p5', await lead(ctx, '505', '2026-03-08T12:00:00Z', 'p5@example.com', adOf(B, 'b1')));
  c.set('p6', await lead(ctx, '506', '2026-03-05T12:00:00Z', 'p6@example.com', null));
  c.set('p8', await lead(ctx, '508', '2026-03-04T12:00:00Z', 'p8@example.com', adOf(A, 'a1')));
  await stage(ctx, c.get('p1')!, { stage: 'sold', value: 300, currency: 'PLN' });
  await stage(ctx, c.get('p4')!, { stage: 'qualified' });
  await stage(ctx, c.get('p4')!, { stage: 'rejected' });
  await stage(ctx, c.get('p5')!, { stage: 'sold', value: 40, currency: 'EUR' });
  await stage(ctx, c.get('p6')!, { stage: 'sold', value: 100 });
  // The sold person's next lead opens cycle 2, counted on its own day (3 March) with its own sale.
  await lead(ctx, '507', '2026-03-03T12:00:00Z', 'p1@example.com', adOf(A, 'a1'), 2);
  await stage(ctx, c.get('p1')!, { stage: 'sold', value: 200, currency: 'PLN' });
  await mergeContacts(server.services, { fromId: c.get('p8')!, intoId: c.get('p2')! }, new Date());
  await settleReports(server);
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

const get = async (ctx: { server: TestServer; org: TestOrg }, path: string) => {
  const res = await ctx.server.request('GET', path, { key: ctx.org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
const byId = (body: any) => Object.fromEntries(body.rows.map((r: any) => [`${r.id}/${r.currency}`, r.metrics]));
const NO_COSTS = { cost_per_lead: null, cost_per_qualified: null, cost_per_sale: null };

test('campaign level: spend of the days, the cohort of local submission days, a merged person\'s leads once', async (ctx) => {
  const body = await get(ctx, '/campaigns/report?from=2026-03-02&to=2026-03-08');
  assert.equal([body.previous, body.maturing, body.unattributed], [{ from: '2026-02-23', to: '2026-03-01' }, false, 0]);
  // cA: 100 + 50.50 + 33.33; leads 501, 502, 504, 507, 508; qualified 501, 504, 507; sold 501 (300) and 507 (200).
  assert.equal(byId(body), {
    'cA/PLN': { spend: 183.83, platform_leads: 4, leads: 5, qualified: 3, rejected: 1, sales: 2, revenue: 500, cost_per_lead: 36.77, cost_per_qualified: 61.28, cost_per_sale: 91.92, revenue_per_spend: 2.7199 },
    // The platform's leads: form 1 and pixel 2, each once.
    'cB/EUR': { spend: 20, platform_leads: 3, leads: 1, qualified: 1, rejected: 0, sales: 1, revenue: 40, cost_per_lead: 20, cost_per_qualified: 20, cost_per_sale: 20, revenue_per_spend: 2 },
  });
  assert.equal(body.organic, { leads: 1, qualified: 1, rejected: 0, sales: 1, revenue: [{ currency: 'PLN', amount: 100 }] });
  const pln = body.totals.find((t: any) => t.currency === 'PLN');
  assert.equal(pln.current, byId(body)['cA/PLN']);
  assert.equal(pln.previous, { spend: 10, platform_leads: 0, leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0, ...NO_COSTS, revenue_per_spend: 0 });
  assert.is(pln.change.spend, 17.383);
  const eur = body.totals.find((t: any) => t.currency === 'EUR');
  assert.equal(eur.previous, { spend: 0, platform_leads: 0, leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0, ...NO_COSTS, revenue_per_spend: null });
});

test('ad set and ad levels split the same figures; a filter narrows the totals and their previous period', async (ctx) => {
  const adsets = byId(await get(ctx, '/campaigns/report?from=2026-03-02&to=2026-03-08&level=adset'));
  assert.equal(Object.keys(adsets).sort(), ['sA/PLN', 'sB/EUR']);
  assert.is(adsets['sA/PLN'].spend, 183.83);
  const ads = await get(ctx, '/campaigns/report?from=2026-03-02&to=2026-03-08&level=ad&campaign=cA');
  assert.equal(byId(ads), {
    'a1/PLN': { spend: 150.5, platform_leads: 4, leads: 4, qualified: 2, rejected: 0, sales: 2, revenue: 500, cost_per_lead: 37.63, cost_per_qualified: 75.25, cost_per_sale: 75.25, revenue_per_spend: 3.3223 },
    'a2/PLN': { spend: 33.33, platform_leads: 0, leads: 1, qualified: 1, rejected: 1, sales: 0, revenue: 0, cost_per_lead: 33.33, cost_per_qualified: 33.33, cost_per_sale: null, revenue_per_spend: 0 },
  });
  assert.equal(ads.totals.map((t: any) => [t.currency, t.current.spend, t.previous.spend]), [['PLN', 183.83, 10]]);
  assert.equal(ads.organic.leads, 0);
});

test('creative report: the two cuts of one video are one group; delivery, trend and verdict from the same days', async (ctx) => {
  const body = await get(ctx, '/creatives/report?to=2026-03-08&weeks=4');
  assert.equal(body.weeks.map((w: any) => [w.from, w.to]), [['2026-02-09', '2026-02-15'], ['2026-02-16', '2026-02-22'], ['2026-02-23', '2026-03-01'], ['2026-03-02', '2026-03-08']]);
  const video = body.rows.find((r: any) => r.group_id === 'video:v1');
  assert.equal(video.ad_ids, ['a1', 'a2']);
  assert.equal([video.metrics.spend, video.metrics.leads, video.metrics.cost_per_lead], [193.83, 5, 38.77]);
  // 56 clicks of 3,600 impressions; 3,600 over 90 + 1,000 + 800 + 400 of daily reach; 193.83 per 3.6 thousand; per 56 clicks.
  assert.equal(video.delivery, { impressions: 3600, clicks: 56, ctr: 0.015556, frequency: 1.572, cpm: 53.84, cpc: 3.46 });
  assert.equal(video.trend.map((w: any) => [w.spend, w.impressions, w.leads, w.cost_per_lead]), [[0, 0, 0, null], [0, 0, 0, null], [10, 100, 0, null], [183.83, 3500, 5, 36.77]]);
  assert.is(video.momentum, null);
  assert.is(video.fatigue.verdict, 'insufficient_data');
  const image = body.rows.find((r: any) => r.group_id === 'image:h1');
  assert.equal([image.currency, image.metrics.spend, image.metrics.leads, image.delivery.ctr], ['EUR', 20, 1, 0.02]);
  assert.is(body.unattributed, 0);
});

test('a re-sync of synced days replaces their spend at every level, however often it runs', async (ctx) => {
  ctx.sandbox.seedInsights('act_2001', [row('2026-03-03', A, 'a1', 60, 1000, 10, 800, 1)]);
  await syncSpend(ctx, 'act_2001', '2026-03-02', '2026-03-03', 5);
  await syncSpend(ctx, 'act_2001', '2026-03-03', '2026-03-03', 6);
  await settleReports(ctx.server);
  const spendAt = async (query: string) => Object.fromEntries((await get(ctx, `/campaigns/report?from=2026-03-02&to=2026-03-08&${query}`)).rows.map((r: any) => [r.id, r.metrics.spend]));
  assert.equal(await spendAt('level=campaign'), { cA: 193.33, cB: 20 });
  assert.equal(await spendAt('level=adset'), { sA: 193.33, sB: 20 });
  assert.equal(await spendAt('level=ad'), { a1: 160, a2: 33.33, b1: 20 });
  const video = (await get(ctx, '/creatives/report?to=2026-03-08&weeks=4')).rows.find((r: any) => r.group_id === 'video:v1');
  assert.is(video.metrics.spend, 203.33);
});

test.run();
