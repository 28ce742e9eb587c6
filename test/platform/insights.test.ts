import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fetchAdAccount, fetchDailyAdInsights, platformLeads, type SpendDay } from '../../src/platform/insights.ts';
import type { InsightSeed } from '../../ops/sandbox/types.ts';
import { sandboxContext, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Platform insights: daily spend per ad from the sandbox');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());
test.before.each(({ sandbox }) => sandbox.reset());

const ids = { campaign_id: '401', campaign_name: 'Spring', adset_id: '501', adset_name: 'Warsaw' };
const rows: InsightSeed[] = [
  { ...ids, date: '2025-03-01', ad_id: '601', ad_name: 'Video', spend: 12.34, impressions: 1000, clicks: 40, reach: 800, formLeads: 3 },
  { ...ids, date: '2025-03-01', ad_id: '602', ad_name: 'Image', spend: 5.5, impressions: 300, clicks: 0, reach: 250, formLeads: 0, pixelLeads: 2 },
  { ...ids, date: '2025-03-02', ad_id: '601', ad_name: 'Video', spend: 20, impressions: 1500, clicks: 60, reach: 1000, formLeads: 4, pixelLeads: 1 },
  { ...ids, date: '2025-03-03', ad_id: '602', ad_name: 'Image', spend: 0.99, impressions: 50, clicks: 1, reach: 50, formLeads: 0 },
];

const key = (d: SpendDay) => `${d.date}/${d.ad_id}`;

test('the ad account answers with its currency and time zone', async ({ sandbox, cfg }) => {
  sandbox.seedAdAccount({ id: 'act_77', name: 'Shop', currency: 'EUR', timezoneName: 'Europe/Berlin' });
  const account = await fetchAdAccount(cfg, '77', 'tok');
  assert.equal(account, { kind: 'ok', value: { id: 'act_77', name: 'Shop', currency: 'EUR', timezone_name: 'Europe/Berlin' } });
  const unknown = await fetchAdAccount(cfg, 'act_78', 'tok');
  assert.is(unknown.kind !== 'ok' && unknown.subcode, 33);
});

test('daily rows come back with the seeded numbers, leads counted once across action types', async ({ sandbox, cfg }) => {
  sandbox.seedAdAccount({ id: 'act_77', currency: 'EUR' });
  sandbox.seedInsights('act_77', rows);
  const result = await fetchDailyAdInsights(cfg, { account: '77', token: 'tok', since: '2025-03-01', until: '2025-03-03', pageSize: 1 });
  assert.is(result.kind, 'ok');
  if (result.kind !== 'ok') return;
  const byKey = new Map(result.value.map((d) => [key(d), d]));
  assert.is(byKey.size, 4);
  assert.equal(byKey.get('2025-03-02/601'), {
    date: '2025-03-02',
    account: 'act_77',
    ...ids,
    ad_id: '601',
    ad_name: 'Video',
    currency: 'EUR',
    spend: 20,
    impressions: 1500,
    clicks: 60,
    reach: 1000,
    frequency: 1.5,
    platform_leads: 5,
  });
  assert.is(byKey.get('2025-03-01/601')?.platform_leads, 3);
  assert.is(byKey.get('2025-03-01/602')?.platform_leads, 2);
  assert.is(byKey.get('2025-03-01/601')?.spend, 12.34);
  assert.is(byKey.get('2025-03-03/602')?.spend, 0.99);
  // pageSize 1: one request per row, plus none more after the last page
  assert.is(sandbox.requestsTo('/act_77/insights'), 4);
});

test('the range is split in halves when the platform asks for less data, and the totals still match', async ({ sandbox, cfg }) => {
  const seeded = sandbox.generateInsights('act_9', { ads: 20, days: 10, since: '2025-01-01' });
  sandbox.setInsightsCellLimit(50);
  const result = await fetchDailyAdInsights(cfg, { account: 'act_9', token: 'tok', since: '2025-01-01', until: seeded.until, pageSize: 30 });
  assert.is(result.kind, 'ok');
  if (result.kind !== 'ok') return;
  assert.is(result.value.length, 200);
  assert.is(new Set(result.value.map(key)).size, 200);
  const cents = result.value.reduce((sum, d) => sum + Math.round(d.spend * 100), 0);
  assert.is(cents / 100, seeded.spend);
  assert.is(result.value.reduce((sum, d) => sum + d.impressions, 0), seeded.impressions);
  assert.is(result.value.reduce((sum, d) => sum + d.clicks, 0), seeded.clicks);
  assert.is(result.value.reduce((sum, d) => sum + d.platform_leads, 0), seeded.leads);
  // 10 days -> 5 + 5 -> 3 + 2 + 3 + 2 days of 20 ads; every answered range holds at most 50 cells
  assert.ok(sandbox.requestsTo('/act_9/insights') > 4);
});

test('a single day that is still too large is reported, not split forever', async ({ sandbox, cfg }) => {
  sandbox.generateInsights('act_9', { ads: 20, days: 2, since: '2025-01-01' });
  sandbox.setInsightsCellLimit(10);
  const result = await fetchDailyAdInsights(cfg, { account: 'act_9', token: 'tok', since: '2025-01-01', until: '2025-01-02' });
  assert.is(result.kind !== 'ok' && result.code, 1);
  // the whole range, then its first day, which cannot be split and ends the fetch
  assert.is(sandbox.requestsTo('/act_9/insights'), 2);
});

test('a bad token is a permanent failure', async ({ sandbox, cfg }) => {
  sandbox.seedAdAccount({ id: 'act_77' });
  const result = await fetchDailyAdInsights(cfg, { account: 'act_77', token: 'bad', since: '2025-01-01', until: '2025-01-02' });
  assert.is(result.kind, 'permanent');
  assert.is(result.kind !== 'ok' && result.code, 190);
});

test('lead counts take the largest lead figure instead of adding the types', () => {
  const form = [
    { action_type: 'lead', value: '4' },
    { action_type: 'onsite_conversion.lead_grouped', value: '4' },
    { action_type: 'leadgen_grouped', value: '4' },
  ];
  assert.is(platformLeads(form), 4);
  assert.is(platformLeads([{ action_type: 'leadgen_grouped', value: '3' }, { action_type: 'offsite_conversion.fb_pixel_lead', value: '2' }]), 5);
  assert.is(platformLeads([{ action_type: 'link_click', value: '9' }]), 0);
  assert.is(platformLeads(undefined), 0);
});

test.run();
