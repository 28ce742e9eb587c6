import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';
import { connectAdAccount } from '../../commands/adaccount/handlers.ts';
import { adCreativeStream, adSpendStream } from '../../commands/adaccount/adaccount.ts';
import { creativeGroupOf } from '../../commands/adaccount/creative.ts';
import { enqueueJob } from '../../src/processes/jobs/enqueue.ts';
import { addDays, dayIn } from '../../src/processes/jobs/kinds/days.ts';
import { finishedJobs, jobsOf as allJobs } from './support/jobs.ts';
import { eventually } from '../support/eventually.ts';

const test = suite<{ server: TestServer; sandbox: Sandbox; org: TestOrg }>('Jobs: ad_spend and creative_sync against the sandbox');
const ACCOUNT = 'act_1001';
const TZ = 'Europe/Warsaw';
const adId = (a: number) => String(140_000_000_000 + 100_000 + a);

test.before(async (ctx) => {
  ctx.sandbox = await startSandbox();
  ctx.server = await startTestServer({ PLATFORM_API_URL: ctx.sandbox.url, JOB_POLL: '50ms', JOB_RETRY_SCHEDULE: '100ms', JOB_MAX_ATTEMPTS: '2' });
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => {
  await ctx.server.stop();
  await ctx.sandbox.stop();
});

const jobsOf = async (server: TestServer, org: TestOrg, kind: string) => (await allJobs(server.services, org.organizationId)).filter((j) => j.kind === kind);
const finished = (server: TestServer, org: TestOrg, kind: string, count: number) => finishedJobs(server.services, org.organizationId, kind, count);

async function spendEvents(server: TestServer, org: TestOrg): Promise<{ type: string; data: any }[]> {
  return (await server.services.store.readStream(adSpendStream(org.organizationId, ACCOUNT))).map((e) => ({ type: e.type, data: e.data as any }));
}

test('connecting an account backfills 90 days, split when the platform says it is too much, with the numbers it served', async ({ server, sandbox, org }) => {
  const today = dayIn(TZ, new Date());
  sandbox.seedAdAccount({ id: ACCOUNT, name: 'Shop ads', currency: 'EUR', timezoneName: TZ });
  const served = sandbox.generateInsights(ACCOUNT, { ads: 30, days: 90, since: addDays(today, -89) });
  sandbox.setInsightsCellLimit(1000);
  sandbox.seedCreative({ id: 'cr-video-a', videoId: 'vid-1', title: 'Spring' });
  sandbox.seedCreative({ id: 'cr-video-b', videoId: 'vid-1', title: 'Spring, cut 2' });
  sandbox.seedCreative({ id: 'cr-image', imageHash: 'img-9' });
  sandbox.seedAd({ id: adId(0), creativeId: 'cr-video-a' });
  sandbox.seedAd({ id: adId(1), creativeId: 'cr-video-b' });
  sandbox.seedAd({ id: adId(2), creativeId: 'cr-image' });

  const connected = await connectAdAccount(server.services, { organizationId: org.organizationId, account: ACCOUNT, token: 'tok-1' }, { organizationId: org.organizationId, actor: 'test' });
  assert.equal([connected.currency, connected.timezone], ['EUR', TZ]);
  const [job] = await finished(server, org, 'ad_spend', 1);
  assert.is(job.status, 'done', job.error);
  assert.equal([job.trigger, job.priority], ['connect', 'user']);
  assert.match(job.summary, /2700 daily rows of 30 ads/);
  assert.ok(sandbox.requestsTo(`/${ACCOUNT}/insights`) > 4, 'the range was split');

  const events = await spendEvents(server, org);
  const chunks = events.filter((e) => e.type === 'AdSpendSynced');
  assert.ok(chunks.every((c) => c.data.days.length <= 1000 && c.data.currency === 'EUR'));
  const days = chunks.flatMap((c) => c.data.days);
  assert.is(days.length, served.rows);
  assert.is(new Set(days.map((d: any) => `${d.date}/${d.ad_id}`)).size, served.rows);
  const sum = (f: (d: any) => number) => days.reduce((s: number, d: any) => s + f(d), 0);
  assert.is(Math.round(sum((d) => d.spend) * 100), Math.round(served.spend * 100));
  assert.is(sum((d) => d.impressions), served.impressions);
  assert.is(sum((d) => d.clicks), served.clicks);
  assert.is(sum((d) => d.platform_leads), served.leads, 'each lead once, though the platform lists it under several action types');
  assert.ok(days.every((d: any) => typeof d.spend === 'number' && d.campaign_name && d.adset_id && d.ad_name));
  const outcome = events[events.length - 1];
  assert.equal([outcome.type, outcome.data.since, outcome.data.until, outcome.data.rows], ['AdSpendSyncSucceeded', addDays(today, -89), today, 2700]);
});

test('the follow-up creative sync reads each seen ad\'s creative and names the ads without one', async ({ server, org }) => {
  const [job] = await finished(server, org, 'creative_sync', 1);
  assert.is(job.status, 'done', job.error);
  assert.equal([job.trigger, job.priority], ['follow_up', 'background']);
  assert.match(job.summary, /^3 of 30 ads' creatives read \(2 creative groups\); 27 without a creative/);
  const creatives = (await server.services.store.readStream(adCreativeStream(org.organizationId, ACCOUNT))).map((e) => e.data as any);
  const byAd = Object.fromEntries(creatives.map((c) => [c.ad_id, c]));
  assert.equal(Object.keys(byAd).sort(), [adId(0), adId(1), adId(2)]);
  assert.equal([byAd[adId(0)].creative_id, byAd[adId(0)].video_id, byAd[adId(0)].format], ['cr-video-a', 'vid-1', 'video']);
  assert.equal([byAd[adId(2)].image_hash, byAd[adId(2)].format], ['img-9', 'image']);
  assert.equal(creatives.map(creativeGroupOf).sort(), ['image:img-9', 'video:vid-1', 'video:vid-1']);
});

test('an operator run re-syncs the rolling window of recent days and picks up revised numbers', async ({ server, sandbox, org }) => {
  const today = dayIn(TZ, new Date());
  sandbox.seedInsights(ACCOUNT, [{
    date: today, campaign_id: 'c9', campaign_name: 'Late', adset_id: 's9', adset_name: 'Late set', ad_id: adId(0), ad_name: 'Ad 1',
    spend: 12.34, impressions: 1000, clicks: 10, reach: 800, formLeads: 2, pixelLeads: 1,
  }]);
  const before = (await spendEvents(server, org)).length;
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'operator' }, { organizationId: org.organizationId, actor: 'test' });
  const jobs = await finished(server, org, 'ad_spend', 2);
  assert.match(jobs[0].summary, /210 daily rows of 30 ads/);
  const fresh = (await spendEvents(server, org)).slice(before);
  const revised = fresh.flatMap((e) => e.data.days ?? []).find((d: any) => d.date === today && d.ad_id === adId(0));
  assert.equal([revised.spend, revised.platform_leads, revised.frequency], [12.34, 3, 1.25]);
  assert.equal([fresh[fresh.length - 1].data.since, fresh[fresh.length - 1].data.until], [addDays(today, -6), today]);
});

test('a refused token fails the sync at once and records the error for the sync state', async ({ server, sandbox, org }) => {
  sandbox.injectFailures({ match: `/${ACCOUNT}/insights`, count: 1, status: 400, code: 190, message: 'Error validating access token', transient: false });
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'api', params: { since: '2024-01-01', until: '2024-01-31' } }, { organizationId: org.organizationId, actor: 'test' });
  const failed = await eventually('a failed sync', async () => (await jobsOf(server, org, 'ad_spend')).find((j) => j.status === 'failed'));
  assert.equal([failed.attempts, failed.label], [1, `Spend sync of ${ACCOUNT} 2024-01-01..2024-01-31`]);
  assert.match(failed.error, /Error validating access token/);
  const last = (await spendEvents(server, org)).pop()!;
  assert.is(last.type, 'AdSpendSyncFailed');
  assert.match(last.data.error, /Error validating access token/);
});

test('an ads insights rate limit (code 80000, HTTP 400, not flagged transient) is retried, not failed', async ({ server, sandbox, org }) => {
  // The platform answers its business use case rate limits with 400 and without is_transient; the sync failed for good.
  sandbox.injectFailures({ match: `/${ACCOUNT}/insights`, count: 3, status: 400, code: 80000, transient: false, message: '(#80000) There have been too many calls from this ad-account. Wait a bit and try again.' });
  const before = (await jobsOf(server, org, 'ad_spend')).length;
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'api', params: { since: '2024-02-01', until: '2024-02-29' } }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finished(server, org, 'ad_spend', before + 1);
  assert.is(job.status, 'done', job.error);
  assert.is(job.attempts, 2);
  const retried = (await server.services.store.readStream(`job-${org.organizationId}-${job.number}`)).find((e) => e.type === 'JobRetryScheduled')!.data as { error: string };
  assert.match(retried.error, /^the platform failed on the insights of 2024-02-01..2024-02-29: \(#80000\) There have been too many calls/);
});

test('an insights time-out asking for a smaller date range (code 100, subcode 1504018) splits the range, not fails the sync', async ({ server, sandbox, org }) => {
  // The platform's Ads Insights error codes: 100 / 1504018 and 2 / 1504038, "Request Timed Out ... Try a smaller date range".
  sandbox.injectFailures({ match: `/${ACCOUNT}/insights`, count: 1, status: 400, code: 100, subcode: 1504018, transient: false, message: 'Request Timed Out: Your request timed out. Try a smaller date range, fetch less data, or use async jobs.' });
  sandbox.injectFailures({ match: `/${ACCOUNT}/insights`, count: 1, status: 500, code: 2, subcode: 1504038, transient: true, message: 'Service temporarily unavailable' });
  const before = (await jobsOf(server, org, 'ad_spend')).length;
  const requests = sandbox.requestsTo(`/${ACCOUNT}/insights`);
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'api', params: { since: '2024-03-01', until: '2024-03-31' } }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finished(server, org, 'ad_spend', before + 1);
  assert.is(job.status, 'done', job.error);
  assert.is(job.attempts, 1, 'no attempt failed: the range was asked for in parts at once');
  assert.is(sandbox.requestsTo(`/${ACCOUNT}/insights`) - requests, 5, 'the month, its first half (timed out too), that half\'s two quarters, then the second half');
});

test('a creative sync the platform stops halfway keeps the creatives it read; its retry reads only the ads left', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  const account = 'act_1002';
  const today = dayIn(TZ, new Date());
  const ad = (n: number) => String(150_000_000_000 + n);
  sandbox.seedAdAccount({ id: account, name: 'Flaky ads', currency: 'EUR', timezoneName: TZ });
  sandbox.seedInsights(account, [1, 2, 3, 4, 5, 6].map((n) => ({
    date: today, campaign_id: 'c20', campaign_name: 'Many', adset_id: 's20', adset_name: 'Set', ad_id: ad(n), ad_name: `Ad ${n}`,
    spend: 1, impressions: 100, clicks: 1, reach: 90, formLeads: 0, pixelLeads: 0,
  })));
  for (let n = 1; n <= 6; n++) {
    sandbox.seedCreative({ id: `cr-many-${n}`, imageHash: `img-many-${n}` });
    sandbox.seedAd({ id: ad(n), creativeId: `cr-many-${n}` });
  }
  // The platform fails on the fourth ad for now (each of the client's three tries): a rate limit, an outage.
  sandbox.injectFailures({ match: `/${ad(4)}`, count: 3 });
  await connectAdAccount(server.services, { organizationId: org.organizationId, account, token: 'tok-2' }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finished(server, org, 'creative_sync', 1);
  assert.is(job.status, 'done', job.error);
  assert.is(job.attempts, 2);
  assert.match(job.summary, /^1 of 1 ads' creatives read/, 'the retry read only the ad left');
  const retried = (await server.services.store.readStream(`job-${org.organizationId}-${job.number}`)).find((e) => e.type === 'JobRetryScheduled')!.data as { error: string };
  assert.match(retried.error, new RegExp(`^the platform failed on ad ${ad(4)}: .*; the 5 creatives read before are kept, 1 ads are left for the retry$`));
  const creatives = (await server.services.store.readStream(adCreativeStream(org.organizationId, account))).map((e) => (e.data as { ad_id: string }).ad_id);
  assert.equal(creatives.sort(), [1, 2, 3, 4, 5, 6].map(ad), 'each ad\'s creative read once');
});

test('a creative sync whose token the platform refuses (revoked) fails for good saying so, not done with every ad "without a creative"', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  const account = 'act_1005';
  const today = dayIn(TZ, new Date());
  const ad = (n: number) => String(151_000_000_000 + n);
  sandbox.seedAdAccount({ id: account, name: 'Revoked', currency: 'EUR', timezoneName: TZ });
  sandbox.seedInsights(account, [1, 2, 3].map((n) => ({
    date: today, campaign_id: 'c50', campaign_name: 'Gone', adset_id: 's50', adset_name: 'Set', ad_id: ad(n), ad_name: `Ad ${n}`,
    spend: 1, impressions: 100, clicks: 1, reach: 90, formLeads: 0, pixelLeads: 0,
  })));
  for (let n = 1; n <= 3; n++) {
    sandbox.seedCreative({ id: `cr-gone-${n}`, imageHash: `img-gone-${n}` });
    sandbox.seedAd({ id: ad(n), creativeId: `cr-gone-${n}` });
  }
  // The user revoked the app after the spend was read: every ad is refused with code 190.
  sandbox.injectFailures({ match: '/151000000', count: 100, status: 400, code: 190, transient: false,
    message: 'Error validating access token: The user has not authorized application 123.' });
  await connectAdAccount(server.services, { organizationId: org.organizationId, account, token: 'tok-5' }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finished(server, org, 'creative_sync', 1);
  assert.equal([job.status, job.attempts, job.summary], ['failed', 1, ''], job.summary);
  assert.match(job.error, /^the platform refused the token of act_1005: .*Error validating access token: The user has not authorized application 123\..*; the 0 creatives read before are kept$/);
  assert.is((await server.services.store.readStream(adCreativeStream(org.organizationId, account))).length, 0);
});

test('a day\'s spend beyond 10^10 fails the sync and is not stored; the reports keep answering', async ({ server, sandbox, org }) => {
  // 10^13 in one cell overflowed its 64-bit millionths and stopped the reporting_ads projector for every organisation.
  sandbox.seedInsights(ACCOUNT, [{
    date: '2024-02-10', campaign_id: 'c8', campaign_name: 'Huge', adset_id: 's8', adset_name: 'Huge set', ad_id: adId(5), ad_name: 'Ad 6',
    spend: 1e13, impressions: 10, clicks: 1, reach: 10, formLeads: 0,
  }]);
  const before = (await spendEvents(server, org)).length;
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'api', params: { since: '2024-02-10', until: '2024-02-10' } }, { organizationId: org.organizationId, actor: 'test' });
  const failed = await eventually('the sync failed', async () => (await jobsOf(server, org, 'ad_spend')).find((j) => j.status === 'failed' && j.label.includes('2024-02-10')));
  assert.equal(failed.attempts, 1);
  assert.match(failed.error, /spend of 10000000000000 EUR for ad 140000100005 on 2024-02-10/);
  const fresh = (await spendEvents(server, org)).slice(before);
  assert.equal(fresh.map((e) => e.type), ['AdSpendSyncFailed']);
  await server.settle();
  const { rows } = await server.services.pool.query<{ status: string }>(`SELECT status FROM projection_checkpoints WHERE name = 'reporting_ads'`);
  assert.equal(rows.map((r) => r.status), ['running']);
});

test('a garbled count or an impossible day fails the sync and is not stored; the reports keep answering', async ({ server, sandbox, org }) => {
  // 12.5 impressions failed its bigint cell, and 2024-02-31 its date cell: either stopped reporting_ads for every organisation.
  const row = { campaign_id: 'c9', campaign_name: 'Garbled', adset_id: 's9', adset_name: 'Set', ad_id: adId(6), ad_name: 'Ad 7', spend: 1, clicks: 1, reach: 10, formLeads: 0 };
  const cases = [
    { date: '2024-03-05', impressions: 12.5, since: '2024-03-05', until: '2024-03-05', error: /12\.5 impressions for ad 140000100006 on 2024-03-05: a day's count must be a whole number/ },
    { date: '2024-02-28', garbledDate: '2024-02-31', impressions: 10, since: '2024-02-20', until: '2024-03-02', error: /a row for ad 140000100006 with the date "2024-02-31": the date must be a day of 2024-02-20\.\.2024-03-02/ },
  ];
  for (const { date, garbledDate, impressions, since, until, error } of cases) {
    const seeded = { ...row, date, impressions };
    sandbox.seedInsights(ACCOUNT, [seeded]);
    // The sandbox serves the row it keeps under its day; its date_start is garbled on the way.
    if (garbledDate) seeded.date = garbledDate;
    const before = (await spendEvents(server, org)).length;
    await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${ACCOUNT}`, trigger: 'api', params: { since, until } }, { organizationId: org.organizationId, actor: 'test' });
    const failed = await eventually('the sync failed', async () => (await jobsOf(server, org, 'ad_spend')).find((j) => j.status === 'failed' && j.label.includes(since) && j.label.includes(until)));
    assert.equal(failed.attempts, 1);
    assert.match(failed.error, error);
    assert.equal((await spendEvents(server, org)).slice(before).map((e) => e.type), ['AdSpendSyncFailed']);
  }
  await server.settle();
  const { rows } = await server.services.pool.query<{ status: string }>(`SELECT status FROM projection_checkpoints WHERE name = 'reporting_ads'`);
  assert.equal(rows.map((r) => r.status), ['running']);
});

test('a campaign\'s platform leads sum past 2^31: the roll-up holds them (it was a 32-bit cell that stopped the projector)', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  const account = 'act_1003';
  sandbox.seedAdAccount({ id: account, name: 'Busy ads', currency: 'EUR', timezoneName: TZ });
  sandbox.seedInsights(account, [1, 2].map((n) => ({
    date: '2024-05-06', campaign_id: 'c31', campaign_name: 'Busy', adset_id: 's31', adset_name: 'Set', ad_id: String(160_000_000_000 + n), ad_name: `Ad ${n}`,
    spend: 10, impressions: 2e9, clicks: 1, reach: 1e9, formLeads: 1.5e9,
  })));
  await connectAdAccount(server.services, { organizationId: org.organizationId, account, token: 'tok-3' }, { organizationId: org.organizationId, actor: 'test' });
  await enqueueJob(server.services, { organizationId: org.organizationId, kind: 'ad_spend', scope: `account:${account}`, trigger: 'api', params: { since: '2024-05-06', until: '2024-05-06' } }, { organizationId: org.organizationId, actor: 'test' });
  const job = await eventually('the sync is done', async () => (await jobsOf(server, org, 'ad_spend')).find((j) => (j.status === 'done' || j.status === 'failed') && j.label.includes('2024-05-06')));
  assert.is(job.status, 'done', job.error);
  await server.settle();
  const res = await server.request('GET', '/campaigns/report?from=2024-05-06&to=2024-05-06&level=campaign', { key: org.key });
  assert.is(res.status, 200);
  assert.equal(res.body.rows.map((r: any) => [r.campaign_id, r.metrics.platform_leads]), [['c31', 3e9]]);
  const { rows } = await server.services.pool.query<{ status: string }>(`SELECT status FROM projection_checkpoints WHERE name = 'reporting_ads'`);
  assert.equal(rows.map((r) => r.status), ['running']);
});

test('the summary gives the spend in its currency\'s decimals: a yen account\'s 1234 JPY, not 1234.00', async ({ server, sandbox }) => {
  const org = await server.newOrganization();
  const today = dayIn(TZ, new Date());
  sandbox.seedAdAccount({ id: 'act_2002', name: 'Tokyo ads', currency: 'JPY', timezoneName: TZ });
  sandbox.seedInsights('act_2002', [{
    date: today, campaign_id: 'c7', campaign_name: 'Yen', adset_id: 's7', adset_name: 'Yen set', ad_id: adId(7), ad_name: 'Ad 8',
    spend: 1234, impressions: 100, clicks: 2, reach: 90, formLeads: 0,
  }]);
  await connectAdAccount(server.services, { organizationId: org.organizationId, account: 'act_2002', token: 'tok-2' }, { organizationId: org.organizationId, actor: 'test' });
  const [job] = await finished(server, org, 'ad_spend', 1);
  assert.is(job.status, 'done', job.error);
  assert.match(job.summary, /; spend 1234 JPY$/);
});

test('another organisation sees none of these jobs', async ({ server }) => {
  const other = await server.newOrganization();
  const res = await server.request('GET', '/jobs', { key: other.key });
  assert.equal(res.body.data, []);
});

test.run();
