// Reports read a range partly as whole buckets less the days they hold beyond it (signed tiles): the days
// taken away must neither count nor bring in an ad or a creative group that only had facts on them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../support/server.ts';
import { Given, spendDay } from './events.ts';
import { settleReports, startReportServer } from './support.ts';
import { totalTiles } from '../../queries/reports/signed-tiles.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Reports over signed tiles');
const A = { campaign: 'c1', adset: 's1', ad: 'a1' };
const B = { campaign: 'c1', adset: 's1', ad: 'b1' };

test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['campaigns:read', 'creatives:read'] });
  const given = new Given(ctx.server.services.store, ctx.org.organizationId);
  await given.accountConnected('act_1', 'PLN');
  // Monday 2024-03-11 to Sunday 2024-03-17: A spends every day, B only on the Sunday.
  const week = ['11', '12', '13', '14', '15', '16', '17'].map((d) => `2024-03-${d}`);
  await given.spendSynced('act_1', 'PLN', [
    ...week.map((date) => spendDay(A, date, 10, { impressions: 100 })),
    spendDay(B, '2024-03-17', 7, { impressions: 50 }),
  ]);
  await given.creativeSynced('act_1', 'a1', { video_id: 'VA' });
  await given.creativeSynced('act_1', 'b1', { video_id: 'VB' });
  await settleReports(ctx.server, given.last);
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('the range is read as its Monday week less the Sunday', () => {
  assert.ok(totalTiles('2024-03-04', '2024-03-16').some((t) => t.total === -1 && t.start === '2024-03-17'));
});

test('campaign report, ad level: the Sunday neither counts nor brings its ad in', async (ctx) => {
  const res = await ctx.server.request('GET', '/campaigns/report?from=2024-03-04&to=2024-03-16&level=ad', { key: ctx.org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.rows.map((r: any) => [r.id, r.metrics.spend]), [['a1', 60]]);
  assert.is(res.body.totals[0].current.spend, 60);
});

test('creative report: the Sunday after `to` is not in any week and brings no group in', async (ctx) => {
  // 4 weeks ending on Saturday 2024-03-16, each Sunday to Saturday: read as its Sunday plus the next Monday week
  // less that week's Sunday, so the last week takes Sunday 2024-03-17 away.
  const res = await ctx.server.request('GET', '/creatives/report?to=2024-03-16', { key: ctx.org.key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.rows.map((r: any) => [r.group_id, r.metrics.spend, r.trend.map((w: any) => w.spend)]), [['video:VA', 60, [0, 0, 0, 60]]]);
});

test.run();
