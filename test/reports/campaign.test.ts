import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../support/server.ts';
import { settleReports, startReportServer } from './support.ts';
import { Given, spendDay } from './events.ts';
import { givenCampaignScenario, PREVIOUS, RANGE } from './scenario.ts';
import { addDays, localDays } from '../../projections/reporting_shared/days.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Campaign report: the hand-built scenario');
test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, ctx.org.organizationId);
  await givenCampaignScenario(given);
  await settleReports(ctx.server, given.last);
});
test.after(async (ctx) => { await ctx.server.stop(); });

const report = (ctx: { server: TestServer; org: TestOrg }, query: string) =>
  ctx.server.request('GET', `/campaigns/report?${query}`, { key: ctx.org.key });

const row = (body: any, id: string) => body.rows.find((r: any) => r.id === id);

test('campaign level: spend of the range, the lead cohort with stages reached up to now', async (ctx) => {
  const res = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.level, 'campaign');
  assert.equal(res.body.previous, PREVIOUS);
  assert.is(res.body.maturing, false);
  assert.is(res.body.timezone, 'Europe/Warsaw');
  // c1: spend 100 + 60 (replaced day) + 40 + 30 = 230; leads l1 l2 l3 l4 l7 l8 l11 = 7; qualified l1 l4;
  // rejected l2 l4; sold l1 (its sale came after the range) for 500.
  assert.equal(row(res.body, 'c1').metrics, {
    spend: 230, platform_leads: 7, leads: 7, qualified: 2, rejected: 2, sales: 1, revenue: 500,
    cost_per_lead: 32.86, cost_per_qualified: 115, cost_per_sale: 230, revenue_per_spend: 2.1739,
  });
  assert.is(row(res.body, 'c1').name, 'Campaign c1');
  assert.is(row(res.body, 'c1').currency, 'PLN');
  assert.equal(row(res.body, 'c2').metrics, {
    spend: 20, platform_leads: 1, leads: 1, qualified: 1, rejected: 0, sales: 1, revenue: 300,
    cost_per_lead: 20, cost_per_qualified: 20, cost_per_sale: 20, revenue_per_spend: 15,
  });
  assert.is(row(res.body, 'c2').currency, 'EUR');
  // c3 spent without leads: every cost is null, revenue per spend is 0.
  assert.equal(row(res.body, 'c3').metrics, {
    spend: 10, platform_leads: 0, leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0,
    cost_per_lead: null, cost_per_qualified: null, cost_per_sale: null, revenue_per_spend: 0,
  });
  // c4 has a lead but no spend synced: costs 0 where leads exist, null where no divisor, revenue per spend null.
  assert.equal(row(res.body, 'c4').metrics, {
    spend: 0, platform_leads: 0, leads: 1, qualified: 0, rejected: 0, sales: 0, revenue: 0,
    cost_per_lead: 0, cost_per_qualified: null, cost_per_sale: null, revenue_per_spend: null,
  });
  assert.is(row(res.body, 'c4').currency, 'PLN');
  assert.equal(res.body.rows.map((r: any) => r.id), ['c1', 'c2', 'c3', 'c4']);
  assert.is(res.body.unattributed, 0);
});

test('organic leads are apart; totals per currency against the previous period', async (ctx) => {
  const res = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}`);
  assert.equal(res.body.organic, { leads: 1, qualified: 1, rejected: 0, sales: 1, revenue: [{ currency: 'PLN', amount: 100 }] });
  const eur = res.body.totals.find((t: any) => t.currency === 'EUR');
  const pln = res.body.totals.find((t: any) => t.currency === 'PLN');
  assert.equal(res.body.totals.map((t: any) => t.currency), ['EUR', 'PLN']);
  assert.equal(eur.current, row(res.body, 'c2').metrics);
  assert.equal(eur.previous, {
    spend: 10, platform_leads: 0, leads: 0, qualified: 0, rejected: 0, sales: 0, revenue: 0,
    cost_per_lead: null, cost_per_qualified: null, cost_per_sale: null, revenue_per_spend: 0,
  });
  assert.is(eur.change.spend, 1);
  assert.is(eur.change.leads, null);
  // PLN: c1 + c3 + c4 = 240 spend, 8 leads; previous: a1's 80 on 25 Feb and l10 sold for 200.
  assert.equal(pln.current, {
    spend: 240, platform_leads: 7, leads: 8, qualified: 2, rejected: 2, sales: 1, revenue: 500,
    cost_per_lead: 30, cost_per_qualified: 120, cost_per_sale: 240, revenue_per_spend: 2.0833,
  });
  assert.equal(pln.previous, {
    spend: 80, platform_leads: 1, leads: 1, qualified: 1, rejected: 0, sales: 1, revenue: 200,
    cost_per_lead: 80, cost_per_qualified: 80, cost_per_sale: 80, revenue_per_spend: 2.5,
  });
  assert.is(pln.change.spend, 2);
  assert.is(pln.change.cost_per_lead, -0.625);
});

test('adset and ad levels: a lead with a campaign but no ad set id is unattributed there', async (ctx) => {
  const adsets = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}&level=adset`);
  assert.is(adsets.status, 200);
  assert.is(adsets.body.unattributed, 1);
  assert.equal(row(adsets.body, 's1').metrics.leads, 4); // l1 l2 l3 l8
  assert.is(row(adsets.body, 's1').campaign_id, 'c1');
  assert.is(row(adsets.body, 's1').campaign_name, 'Campaign c1');
  assert.is(row(adsets.body, 's1').ad_id, null);
  assert.equal(row(adsets.body, 's2').metrics.leads, 2); // l4 and the fetched l11
  const ads = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}&level=ad`);
  assert.is(ads.body.unattributed, 1);
  assert.equal(row(ads.body, 'a1').metrics.spend, 160);
  assert.equal(row(ads.body, 'a1').metrics.leads, 2);
  assert.equal(row(ads.body, 'a2').metrics.leads, 2); // l3, and l8 at 00:30 local on 1 March
  assert.equal([row(ads.body, 'a1').adset_id, row(ads.body, 'a1').adset_name, row(ads.body, 'a1').ad_name], ['s1', 'Ad set s1', 'Ad a1']);
  // Totals do not depend on the level.
  assert.equal(ads.body.totals, adsets.body.totals);
});

test('filters: campaign narrows ad sets and ads, adset narrows ads', async (ctx) => {
  const adsets = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}&level=adset&campaign=c1`);
  assert.equal(adsets.body.rows.map((r: any) => r.id), ['s1', 's2']);
  assert.is(adsets.body.unattributed, 1);
  assert.equal(adsets.body.totals.map((t: any) => [t.currency, t.current.spend, t.current.leads]), [['PLN', 230, 7]]);
  const ads = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}&level=ad&campaign=c1&adset=s1`);
  assert.equal(ads.body.rows.map((r: any) => r.id), ['a1', 'a2']);
  assert.is(ads.body.unattributed, 0);
  const none = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}&level=ad&adset=nope`);
  assert.equal(none.body.rows, []);
  assert.equal(none.body.totals, []);
});

test('syncs: each ad account with its state', async (ctx) => {
  const res = await report(ctx, `from=${RANGE.from}&to=${RANGE.to}`);
  assert.equal(res.body.syncs, [
    { account: 'act_1', name: 'Account act_1', currency: 'PLN', state: 'ok', last_success_at: '2024-04-01T03:00:00.000Z', last_failure_at: null, last_error: '', synced_from: '2024-02-01', synced_to: '2024-03-31', synced_ranges: [{ from: '2024-02-01', to: '2024-03-31' }], covers_range: true },
    { account: 'act_2', name: 'Account act_2', currency: 'EUR', state: 'failing', last_success_at: '2024-04-01T03:00:00.000Z', last_failure_at: '2024-04-02T03:00:00.000Z', last_error: 'token expired', synced_from: '2024-03-01', synced_to: '2024-03-31', synced_ranges: [{ from: '2024-03-01', to: '2024-03-31' }], covers_range: true },
  ]);
});

test('syncs: the days actually synced, not the span from the first synced day to the last', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  await given.accountConnected('act_9', 'PLN', 'Account act_9');
  await given.syncSucceeded('act_9', '2024-03-01', '2024-03-31', '2024-04-01T03:00:00.000Z');
  await given.syncSucceeded('act_9', '2024-03-25', '2024-04-07', '2024-04-08T03:00:00.000Z'); // overlaps: one range
  await given.syncSucceeded('act_9', '2023-01-01', '2023-01-31', '2024-04-09T03:00:00.000Z'); // an old month, 0 rows
  await given.syncSucceeded('act_9', '2024-04-08', '2024-04-08', '2024-04-09T04:00:00.000Z'); // adjacent: merged
  await settleReports(ctx.server, given.last);
  const syncs = async (query: string) => (await ctx.server.request('GET', `/campaigns/report?${query}`, { key: org.key })).body.syncs;
  const [sync] = await syncs('from=2024-03-01&to=2024-04-08');
  assert.equal([sync.synced_from, sync.synced_to], ['2023-01-01', '2024-04-08']);
  assert.equal(sync.synced_ranges, [{ from: '2023-01-01', to: '2023-01-31' }, { from: '2024-03-01', to: '2024-04-08' }]);
  assert.is(sync.covers_range, true);
  // Inside synced_from..synced_to but never synced: not covered.
  assert.is((await syncs('from=2023-12-01&to=2023-12-31'))[0].covers_range, false);
  assert.is((await syncs('from=2024-02-28&to=2024-03-10'))[0].covers_range, false);
  assert.is((await syncs('from=2023-01-05&to=2023-01-20'))[0].covers_range, true);
});

test('costs are rounded half up to the cent: 20.15 for 2 leads is 10.08 a lead, 2.01 for 2 is 1.01', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  const b1 = { campaign: 'c1', adset: 's1', ad: 'b1' };
  const b2 = { campaign: 'c1', adset: 's1', ad: 'b2' };
  await given.accountConnected('act_1', 'PLN');
  await given.spendSynced('act_1', 'PLN', [spendDay(b1, '2024-03-01', 20.15), spendDay(b2, '2024-03-01', 2.01)]);
  for (const [id, ad] of [['r1', b1], ['r2', b1], ['r3', b2], ['r4', b2]] as const) await given.leadReceived(id, ad, '2024-03-01T10:00:00Z');
  await given.stage('r1', 'new', 'sold', '2024-03-02T10:00:00Z', { value: 10.03, currency: 'PLN' });
  await settleReports(ctx.server, given.last);
  const res = await ctx.server.request('GET', '/campaigns/report?from=2024-03-01&to=2024-03-01&level=ad', { key: org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal([row(res.body, 'b1').metrics.cost_per_lead, row(res.body, 'b1').metrics.cost_per_sale], [10.08, 20.15]);
  assert.is(row(res.body, 'b2').metrics.cost_per_lead, 1.01);
  // 10.03 / 20.15 = 0.497766...; 22.16 / 4 = 5.54.
  assert.equal([row(res.body, 'b1').metrics.revenue_per_spend, res.body.totals[0].current.cost_per_lead], [0.4978, 5.54]);
});

test('large sums are shown to the unit: 10,000,000,000 IDR of spend and of revenue are not a cent more', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'IDR', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  const ad = { campaign: 'c1', adset: 's1', ad: 'i1' };
  await given.accountConnected('act_1', 'IDR');
  await given.spendSynced('act_1', 'IDR', [spendDay(ad, '2024-03-01', 1e10), spendDay(ad, '2024-03-02', 5e9)]);
  await given.leadReceived('i1', ad, '2024-03-01T10:00:00Z');
  await given.leadReceived('i2', ad, '2024-03-02T10:00:00Z');
  await given.stage('i1', 'new', 'sold', '2024-03-03T10:00:00Z', { value: 1e10, currency: 'IDR' });
  await settleReports(ctx.server, given.last);
  const res = await ctx.server.request('GET', '/campaigns/report?from=2024-03-01&to=2024-03-02', { key: org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const { metrics } = row(res.body, 'c1');
  // Rounding used to nudge by a relative 1e-12, a whole cent from 5e9 up: 15000000000.02, 10000000000.01.
  assert.equal([metrics.spend, metrics.revenue, metrics.cost_per_lead, metrics.cost_per_sale], [15e9, 1e10, 7.5e9, 15e9]);
  assert.equal(res.body.totals[0].current.spend, 15e9);
});

test('money of a three-decimal currency keeps its third decimal: 12.345 KWD of spend, a sale of 1.2345 is 1.235', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'KWD', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  const ad = { campaign: 'c1', adset: 's1', ad: 'k1' };
  await given.accountConnected('act_1', 'KWD');
  await given.spendSynced('act_1', 'KWD', [spendDay(ad, '2024-03-01', 12.345)]);
  await given.leadReceived('k1', ad, '2024-03-01T10:00:00Z');
  await given.leadReceived('k2', ad, '2024-03-01T11:00:00Z');
  await given.leadReceived('k3', null, '2024-03-01T12:00:00Z');
  await given.stage('k1', 'new', 'sold', '2024-03-02T10:00:00Z', { value: 1.2345, currency: 'KWD' });
  await given.stage('k3', 'new', 'sold', '2024-03-02T10:00:00Z', { value: 0.0125, currency: 'KWD' });
  await settleReports(ctx.server, given.last);
  const res = await ctx.server.request('GET', '/campaigns/report?from=2024-03-01&to=2024-03-01', { key: org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const { metrics } = row(res.body, 'c1');
  // Rounded to the cent they were 12.35, 1.23, 6.17 and 12.35.
  assert.equal([metrics.spend, metrics.revenue, metrics.cost_per_lead, metrics.cost_per_sale], [12.345, 1.235, 6.173, 12.345]);
  assert.equal([res.body.totals[0].currency, res.body.totals[0].current.spend], ['KWD', 12.345]);
  assert.equal(res.body.organic.revenue, [{ currency: 'KWD', amount: 0.013 }]);
});

test('the change of a cost against the previous period is of the costs, not of their cents: 0.045 against 0.04 a lead is +12.5%', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  const ad = { campaign: 'c1', adset: 's1', ad: 'k1' };
  await given.accountConnected('act_1', 'PLN');
  // Previous day: 0.80 for 20 leads (0.04 a lead, one sale); this day: 0.90 for 20 leads (0.045, shown 0.05; one sale).
  await given.spendSynced('act_1', 'PLN', [spendDay(ad, '2024-03-01', 0.8), spendDay(ad, '2024-03-02', 0.9)]);
  for (let i = 0; i < 40; i++) await given.leadReceived(`k${i}`, ad, `2024-03-0${i < 20 ? 1 : 2}T10:00:00Z`);
  await given.stage('k0', 'new', 'sold', '2024-03-03T10:00:00Z', { value: 10, currency: 'PLN' });
  await given.stage('k20', 'new', 'sold', '2024-03-03T10:00:00Z', { value: 10, currency: 'PLN' });
  await settleReports(ctx.server, given.last);
  const res = await ctx.server.request('GET', '/campaigns/report?from=2024-03-02&to=2024-03-02', { key: org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const [pln] = res.body.totals;
  assert.equal([pln.current.cost_per_lead, pln.previous.cost_per_lead], [0.05, 0.04]);
  // 0.045 / 0.04 - 1 and 0.9 / 0.8 - 1; the shown cents would give 0.25.
  assert.equal([pln.change.cost_per_lead, pln.change.cost_per_sale, pln.change.spend], [0.125, 0.125, 0.125]);
});

test('a lead of an ad known only from its creative counts in its account\'s currency at every level', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read'] });
  const given = new Given(ctx.server.services.store, org.organizationId);
  await given.accountConnected('act_2', 'EUR');
  await given.creativeSynced('act_2', 'b1', { video_id: 'VB' }); // no spend synced yet
  await given.leadReceived('e1', { campaign: 'c9', adset: 's9', ad: 'b1' }, '2024-03-05T10:00:00Z');
  await settleReports(ctx.server, given.last);
  const at = async (level: string) => (await ctx.server.request('GET', `/campaigns/report?from=${RANGE.from}&to=${RANGE.to}&level=${level}`, { key: org.key })).body;
  for (const level of ['campaign', 'adset', 'ad']) {
    const body = await at(level);
    assert.equal(body.rows.map((r: any) => [r.id, r.currency, r.metrics.leads]), [[{ campaign: 'c9', adset: 's9', ad: 'b1' }[level], 'EUR', 1]], level);
    assert.equal(body.totals.map((t: any) => [t.currency, t.current.leads]), [['EUR', 1]], level);
    // The next day's report has it in its previous period (read per campaign at the ad level too).
    const next = (await ctx.server.request('GET', `/campaigns/report?from=2024-03-06&to=2024-03-06&level=${level}`, { key: org.key })).body;
    assert.equal(next.totals.map((t: any) => [t.currency, t.current.leads, t.previous.leads]), [['EUR', 0, 1]], level);
  }
});

test('a range of exactly 366 days is answered from the roll-ups; 367 days is a validation_error', async (ctx) => {
  const year = await report(ctx, 'from=2023-03-11&to=2024-03-10');
  assert.is(year.status, 200);
  const pln = year.body.totals.find((t: any) => t.currency === 'PLN');
  // The range and the previous period of the scenario together: 240 + 80 spend, 8 + 1 leads, 500 + 200 revenue.
  assert.equal([pln.current.spend, pln.current.leads, pln.current.sales, pln.current.revenue], [320, 9, 2, 700]);
  assert.equal(year.body.totals.find((t: any) => t.currency === 'EUR').current.spend, 30);
  const tooLong = await report(ctx, 'from=2023-03-10&to=2024-03-10');
  assert.is(tooLong.status, 400);
  assert.is(tooLong.body.error.code, 'validation_error');
  assert.is(tooLong.body.error.details.fields[0].field, 'to');
});

test('a from more than 366 days before today, with no to, is a validation_error naming from (not the to never sent)', async (ctx) => {
  const today = localDays('Europe/Warsaw')(new Date().toISOString());
  const { key } = await ctx.server.newKey(ctx.org.organizationId, ['campaigns:read', 'creatives:read']);
  for (const path of ['/campaigns/report', '/creatives/report']) {
    const tooLong = await ctx.server.request('GET', `${path}?from=${addDays(today, -366)}`, { key });
    assert.is(tooLong.status, 400, path);
    assert.equal(tooLong.body.error.details.fields.map((f: any) => f.field), ['from'], path);
    const year = await ctx.server.request('GET', `${path}?from=${addDays(today, -365)}`, { key });
    assert.equal([year.status, year.body.from, year.body.to], [200, addDays(today, -365), today], path);
  }
});

test('bad parameters are validation errors', async (ctx) => {
  for (const query of ['from=2024-03-10&to=2024-03-01', 'level=campaign&campaign=c1', 'level=adset&adset=s1', 'from=2024-02-30', 'level=country', 'foo=1']) {
    const res = await report(ctx, query);
    assert.is(res.status, 400, query);
    assert.is(res.body.error.code, 'validation_error', query);
    assert.is(res.body.error.details.fields.length, 1, `${query}: one message, ${JSON.stringify(res.body.error.details.fields)}`);
  }
});

test('defaults: from 30 days ago to today (organisation time zone), maturing', async (ctx) => {
  const today = () => localDays('Europe/Warsaw')(new Date().toISOString());
  const before = today();
  const res = await report(ctx, '');
  const after = today();
  assert.is(res.status, 200);
  assert.is(res.body.maturing, true);
  assert.ok([before, after].includes(res.body.to), res.body.to);
  assert.is(res.body.from, addDays(res.body.to, -30));
  assert.equal(res.body.previous, { from: addDays(res.body.to, -61), to: addDays(res.body.to, -31) });
  // Only `to` given: `from` is 30 days before it.
  const onlyTo = await report(ctx, `to=${RANGE.to}`);
  assert.is(onlyTo.status, 200);
  assert.equal([onlyTo.body.from, onlyTo.body.to], [addDays(RANGE.to, -30), RANGE.to]);
});

test('another organisation\'s key sees an empty report; a key without the scope is refused', async (ctx) => {
  const other = await ctx.server.newOrganization({ scopes: ['campaigns:read'] });
  const res = await ctx.server.request('GET', `/campaigns/report?from=${RANGE.from}&to=${RANGE.to}&level=ad`, { key: other.key });
  assert.is(res.status, 200);
  assert.equal([res.body.rows, res.body.totals, res.body.syncs, res.body.unattributed, res.body.organic.leads], [[], [], [], 0, 0]);
  const noScope = await ctx.server.newOrganization({ scopes: ['creatives:read'] });
  const refused = await ctx.server.request('GET', '/campaigns/report', { key: noScope.key });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.details.required_scope, 'campaigns:read');
});

test.run();
