import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../support/server.ts';
import { Given } from './events.ts';
import { settleReports, startReportServer } from './support.ts';
import { givenCreativeScenario, TO } from './creative-scenario.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Creative report: the hand-built scenario');
test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['creatives:read'] });
  const given = new Given(ctx.server.services.store, ctx.org.organizationId);
  await givenCreativeScenario(given, ctx.server.services.store);
  await settleReports(ctx.server, given.last);
});
test.after(async (ctx) => { await ctx.server.stop(); });

const report = (ctx: { server: TestServer; org: TestOrg }, query: string, language = 'en') =>
  ctx.server.request('GET', `/creatives/report?to=${TO}${query}`, { key: ctx.org.key, headers: { 'accept-language': language } });
const row = (body: any, id: string) => body.rows.find((r: any) => r.group_id === id);

test('rows per creative group with metrics, delivery, weekly trend, momentum, fatigue and tags', async (ctx) => {
  const res = await report(ctx, '');
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.weeks, [
    { index: 1, from: '2024-03-01', to: '2024-03-07' }, { index: 2, from: '2024-03-08', to: '2024-03-14' },
    { index: 3, from: '2024-03-15', to: '2024-03-21' }, { index: 4, from: '2024-03-22', to: '2024-03-28' },
  ]);
  assert.equal([res.body.from, res.body.to], ['2024-03-01', TO]);
  assert.equal(res.body.rows.map((r: any) => r.group_id), ['video:V1', 'image:IMG1', 'creative:CR1']);
  const v1 = row(res.body, 'video:V1');
  // Two ads: 4 x 100 + 50 spend; 5 + 5 + 4 + 2 + 1 leads, one sold for 1000 after the range.
  assert.equal(v1.metrics, {
    spend: 450, platform_leads: 0, leads: 17, qualified: 1, rejected: 0, sales: 1, revenue: 1000,
    cost_per_lead: 26.47, cost_per_qualified: 450, cost_per_sale: 450, revenue_per_spend: 2.2222,
  });
  assert.equal(v1.delivery, { impressions: 45_000, clicks: 780, ctr: 0.017333, frequency: 1.324, cpm: 10, cpc: 0.58 });
  assert.equal(v1.ad_ids, ['v1a', 'v1b']);
  assert.equal(v1.tags, ['hook:question', 'creator:anna']);
  assert.equal([v1.kind, v1.format, v1.title, v1.currency], ['video', 'video', 'Question hook', 'PLN']);
  assert.equal(v1.trend.map((w: any) => [w.index, w.spend, w.leads, w.ctr]), [[1, 100, 5, 0.02], [2, 100, 5, 0.02], [3, 100, 4, 0.016], [4, 150, 3, 0.014667]]);
  // Week 4 against the average of weeks 1-3 (14 / 3): 3 / 4.667 - 1.
  assert.is(v1.momentum, -0.357);
  // CTR -26.7% from week 1, cost per lead 50 against 300 / 14, frequency only +9.1%: fatiguing.
  assert.equal({ ...v1.fatigue, reason: undefined }, { verdict: 'fatiguing', best_week: 1, ctr_change: -0.267, cost_per_lead_change: 1.333, frequency_change: 0.091, reason: undefined });
  assert.match(v1.fatigue.reason, /falling from its best week/);
  const image = row(res.body, 'image:IMG1');
  assert.equal([image.fatigue.verdict, image.momentum, image.metrics.leads, image.tags], ['fresh', 0, 8, ['hook:pain']]);
  const carousel = row(res.body, 'creative:CR1');
  assert.equal([carousel.fatigue.verdict, carousel.momentum, carousel.currency, carousel.metrics.spend], ['insufficient_data', null, 'EUR', 30]);
});

test('totals per currency over the rows with the previous period; unattributed leads have no known creative', async (ctx) => {
  const res = await report(ctx, '');
  assert.equal(res.body.previous, { from: '2024-02-02', to: '2024-02-29' });
  assert.equal(res.body.totals.map((t: any) => [t.currency, t.current.spend, t.current.leads, t.previous.spend, t.previous.leads]), [
    ['EUR', 30, 1, 0, 0],
    ['PLN', 650, 25, 70, 1],
  ]);
  // x's two leads and the lead with a campaign but no ad id; the organic lead is not counted.
  assert.is(res.body.unattributed, 3);
  assert.equal(res.body.syncs.map((s: any) => s.account), ['act_1', 'act_2']);
});

test('the campaign filter keeps only that campaign\'s spend and leads: the video is then fatigued', async (ctx) => {
  const res = await report(ctx, '&campaign=c1');
  assert.equal(res.body.rows.map((r: any) => r.group_id), ['video:V1', 'image:IMG1']);
  const v1 = row(res.body, 'video:V1');
  assert.equal([v1.metrics.spend, v1.metrics.leads], [400, 16]);
  // CTR 1.2% against 2% (-40%), CPL 50 against 21.43, frequency 1.667 against 1.25.
  assert.equal([v1.fatigue.verdict, v1.fatigue.ctr_change, v1.fatigue.frequency_change], ['fatigued', -0.4, 0.333]);
  assert.is(res.body.unattributed, 3);
});

test('format, ad account and tag filters', async (ctx) => {
  const images = await report(ctx, '&format=image');
  assert.equal(images.body.rows.map((r: any) => r.group_id), ['image:IMG1']);
  assert.equal(images.body.totals.map((t: any) => [t.currency, t.current.spend]), [['PLN', 200]]);
  const eur = await report(ctx, '&ad_account=act_2');
  assert.equal(eur.body.rows.map((r: any) => r.group_id), ['creative:CR1']);
  assert.equal(eur.body.syncs.map((s: any) => s.account), ['act_2']);
  assert.is(eur.body.unattributed, 0);
  // The platform's ad account id is the number; its node id (act_ + number) is the same account.
  const bare = await report(ctx, '&ad_account=2');
  assert.is(bare.status, 200);
  assert.equal({ ...bare.body, as_of: undefined }, { ...eur.body, as_of: undefined });
  // Text in neither form names no account (connect holds only act_<digits>): a bad value, not an empty report.
  for (const query of ['&ad_account=foo', '&ad_account=act_', '&ad_account=act_2x', '&ad_account=Account%202']) {
    const bad = await report(ctx, query);
    assert.is(bad.status, 400, query);
    assert.equal([bad.body.error.code, bad.body.error.details.field], ['validation_error', 'ad_account'], query);
  }
  const hook = await report(ctx, '&tag=hook:question');
  assert.equal(hook.body.rows.map((r: any) => r.group_id), ['video:V1']);
  const creator = await report(ctx, '&tag=creator:anna');
  assert.equal(creator.body.rows.map((r: any) => r.group_id), ['video:V1']);
  const offer = await report(ctx, '&tag=offer:none');
  assert.equal(offer.body.rows, []);
});

test('weeks 4-8; another tag dimension and bad weeks are validation errors', async (ctx) => {
  const eight = await report(ctx, '&weeks=8');
  assert.is(eight.status, 200);
  assert.equal([eight.body.weeks.length, eight.body.from, eight.body.weeks[0].from], [8, '2024-02-02', '2024-02-02']);
  // Week 2 of 8 (9-15 February) holds the lead of 15 February.
  assert.equal(row(eight.body, 'video:V1').trend.map((w: any) => w.leads), [0, 1, 0, 0, 5, 5, 4, 3]);
  for (const query of ['&weeks=3', '&weeks=9', '&weeks=x', '&tag=mood:happy', '&tag=hook', '&from=2024-03-29']) {
    const res = await report(ctx, query);
    assert.is(res.status, 400, query);
    assert.is(res.body.error.code, 'validation_error', query);
  }
  // Said once, however many rules a value breaks: a 20-digit weeks listed "an integer from 4 to 8" twice.
  for (const weeks of ['99999999999999999999', '-9', '4.5']) {
    const res = await report(ctx, `&weeks=${weeks}`);
    assert.equal([res.status, res.body.error.details.fields], [400, [{ field: 'weeks', message: 'an integer from 4 to 8' }]], weeks);
  }
});

test('a future from without to is a report of that one day, as for campaigns: no error blaming a to never sent', async (ctx) => {
  const res = await ctx.server.request('GET', '/creatives/report?from=2999-01-01', { key: ctx.org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal([res.body.from, res.body.to, res.body.rows.length], ['2999-01-01', '2999-01-01', 0]);
});

test('the fatigue reason follows the caller\'s language', async (ctx) => {
  const pl = await report(ctx, '&campaign=c1', 'pl');
  assert.match(row(pl.body, 'video:V1').fatigue.reason, /zmęczona/);
});

test('another organisation\'s key sees an empty report; the scope is creatives:read', async (ctx) => {
  const other = await ctx.server.newOrganization({ scopes: ['creatives:read'] });
  const res = await ctx.server.request('GET', `/creatives/report?to=${TO}`, { key: other.key });
  assert.equal([res.status, res.body.rows, res.body.totals, res.body.syncs, res.body.unattributed], [200, [], [], [], 0]);
  const campaignsOnly = await ctx.server.newOrganization({ scopes: ['campaigns:read'] });
  const refused = await ctx.server.request('GET', '/creatives/report', { key: campaignsOnly.key });
  assert.equal([refused.status, refused.body.error.details.required_scope], [403, 'creatives:read']);
});

test.run();
