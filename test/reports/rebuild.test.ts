import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestOrg, TestServer } from '../support/server.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { withReportsAsOf, REPORTING_PROJECTORS } from '../../ops/reports-asof.ts';
import { campaignReport } from '../../queries/reports/campaign.ts';
import { resolveCampaignParams } from '../../queries/reports/params.ts';
import { reportScope } from '../../queries/reports/scope.ts';
import { Given, spendDay } from './events.ts';
import { A1, A2, givenCampaignScenario, RANGE } from './scenario.ts';
import { givenCreativeScenario, TO } from './creative-scenario.ts';
import { settleReports, startReportServer } from './support.ts';
import { runOps } from './cli.ts';

interface Ctx { server: TestServer; campaigns: TestOrg; creatives: TestOrg }
const test = suite<Ctx>('Reports: rebuilt from the store, and as of a past moment');
test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.campaigns = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', scopes: ['campaigns:read', 'creatives:read'] });
  ctx.creatives = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', scopes: ['campaigns:read', 'creatives:read'] });
  const campaigns = new Given(ctx.server.services.store, ctx.campaigns.organizationId);
  const creatives = new Given(ctx.server.services.store, ctx.creatives.organizationId);
  await givenCampaignScenario(campaigns);
  await givenCreativeScenario(creatives, ctx.server.services.store);
  await settleReports(ctx.server, campaigns.last, creatives.last);
});
test.after(async (ctx) => { await ctx.server.stop(); });

const withoutMoment = (body: any) => ({ ...body, as_of: undefined });

async function everyReport(ctx: Ctx): Promise<unknown[]> {
  const paths = [
    ...['campaign', 'adset', 'ad'].map((level) => [ctx.campaigns.key, `/campaigns/report?from=2023-03-11&to=${RANGE.to}&level=${level}`]),
    ...['campaign', 'adset', 'ad'].map((level) => [ctx.campaigns.key, `/campaigns/report?from=${RANGE.from}&to=${RANGE.to}&level=${level}`]),
    [ctx.creatives.key, `/creatives/report?to=${TO}&weeks=8`],
    [ctx.creatives.key, `/creatives/report?to=${TO}&campaign=c1`],
  ];
  const out = [];
  for (const [key, path] of paths) {
    const res = await ctx.server.request('GET', path, { key });
    assert.is(res.status, 200, path);
    out.push(withoutMoment(res.body));
  }
  return out;
}

test('a rebuilt report equals the live one', async (ctx) => {
  const live = await everyReport(ctx);
  assert.ok((live[0] as any).rows.length > 0);
  for (const projector of REPORTING_PROJECTORS) {
    await rebuildProjector(ctx.server.services.pool, ctx.server.services.store, projector);
  }
  await settleReports(ctx.server);
  assert.equal(await everyReport(ctx), live);
});

// Live, a cell a lead left (a pending lead fetched with its ad, a sale in a named currency undone) stayed as
// an all-zero row, which a rebuild never writes: the two read models differed row for row.
test('a lead fact cell emptied live is gone, as in a rebuild', async (ctx) => {
  const { server } = ctx;
  const org = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  const given = new Given(server.services.store, org.organizationId);
  // One projector batch each: within a batch a cell's changes net out before anything is written.
  const steps = [
    () => given.leadReceived('moved', null, '2024-05-06T10:00:00Z', { pending: true }),
    () => given.leadFetched('moved', A2, '2024-05-06T10:00:00Z'),
    () => given.leadReceived('unsold', A1, '2024-05-07T10:00:00Z'),
    () => given.stage('unsold', 'new', 'sold', '2024-05-08T10:00:00Z', { value: 40, currency: 'EUR' }),
    () => given.stage('unsold', 'sold', 'contacted', '2024-05-09T10:00:00Z'),
  ];
  for (const step of steps) {
    await step();
    await settleReports(server, given.last);
  }
  const cells = async () => {
    const rows = [];
    for (const table of ['report_lead_facts', 'report_lead_campaigns']) {
      const { rows: found } = await server.services.pool.query(`SELECT * FROM ${table} WHERE organization_id = $1`, [org.organizationId]);
      rows.push(...found.map((r) => JSON.stringify({ table, ...r })).sort());
    }
    return rows;
  };
  const live = await cells();
  const zero = (r: any) => r.leads === 0 && r.qualified === 0 && r.rejected === 0 && r.sales === 0 && r.revenue_micros === '0';
  assert.equal(live.filter((row) => zero(JSON.parse(row))), [], 'no all-zero cell is left live');
  await rebuildProjector(server.services.pool, server.services.store, REPORTING_PROJECTORS[0]);
  await settleReports(server);
  assert.equal(await cells(), live);
});

test('as of a past moment, the report differs from today\'s exactly by the events after it', async (ctx) => {
  const { server, campaigns } = ctx;
  const query = `from=${RANGE.from}&to=${RANGE.to}&level=ad`;
  const before = withoutMoment((await server.request('GET', `/campaigns/report?${query}`, { key: campaigns.key })).body);
  const { rows } = await server.services.pool.query<{ t: Date }>('SELECT clock_timestamp() AS t');
  const moment = rows[0].t;
  // Created times are kept to the millisecond: the first event after the moment must fall in a later one.
  await new Promise((resolve) => setTimeout(resolve, 3));
  // After the moment: l3 sells for 50, a new lead on a2, and a1's 1 March re-synced from 100 to 130.
  const given = new Given(server.services.store, campaigns.organizationId);
  await given.stage('l3', 'contacted', 'sold', '2024-04-25T10:00:00Z', { value: 50, currency: 'PLN' });
  await given.leadReceived('late', A2, '2024-03-09T10:00:00Z');
  await given.spendSynced('act_1', 'PLN', [spendDay(A1, '2024-03-01', 130, { platform_leads: 2 })]);
  await settleReports(server, given.last);
  const today = withoutMoment((await server.request('GET', `/campaigns/report?${query}`, { key: campaigns.key })).body);

  const asOf = await withReportsAsOf(server.services, moment, async (db) => {
    const scope = (await reportScope(db, campaigns.organizationId, moment))!;
    return campaignReport(db, scope, resolveCampaignParams({ from: RANGE.from, to: RANGE.to, level: 'ad' }, scope.today));
  });
  assert.equal(withoutMoment(asOf), before);
  const row = (body: any, id: string) => body.rows.find((r: any) => r.id === id).metrics;
  assert.equal([row(today, 'a1').spend - row(before, 'a1').spend, row(today, 'a2').leads - row(before, 'a2').leads], [30, 1]);
  assert.equal([row(today, 'a2').sales - row(before, 'a2').sales, row(today, 'a2').revenue - row(before, 'a2').revenue], [1, 50]);
  // Nothing else moved: put the three changes back and the reports match field for field.
  const undo = structuredClone(today);
  const a1 = undo.rows.find((r: any) => r.id === 'a1');
  const a2 = undo.rows.find((r: any) => r.id === 'a2');
  a1.metrics = row(before, 'a1');
  a2.metrics = row(before, 'a2');
  undo.totals = before.totals;
  undo.rows.sort((x: any, y: any) => y.metrics.spend - x.metrics.spend || y.metrics.leads - x.metrics.leads || x.id.localeCompare(y.id));
  assert.equal(undo, before);
});

test('ops reports campaign --as-of prints the past report; ops creatives tag changes the tags', async (ctx) => {
  const { server, campaigns, creatives } = ctx;
  const early = await runOps(server.db.url, ['reports', 'campaign', '--org', campaigns.organizationId, '--from', RANGE.from, '--to', RANGE.to, '--as-of', '2000-01-01T00:00:00Z', '--json']);
  assert.is(early.code, 0, early.stderr);
  const empty = JSON.parse(early.stdout);
  assert.equal([empty.rows, empty.totals, empty.as_of], [[], [], '2000-01-01T00:00:00.000Z']);
  const table = await runOps(server.db.url, ['reports', 'campaign', '--org', campaigns.organizationId, '--from', RANGE.from, '--to', RANGE.to]);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /Campaign c1 \[c1\]/);
  const bad = await runOps(server.db.url, ['reports', 'campaign', '--org', campaigns.organizationId, '--level', 'campaign', '--campaign', 'c1', '--json']);
  assert.equal([bad.code, bad.stdout], [2, '']);
  const tagged = await runOps(server.db.url, ['creatives', 'tag', '--org', creatives.organizationId, 'image:IMG1', 'offer:free-trial', 'hook:', '--json']);
  assert.is(tagged.code, 0, tagged.stderr);
  assert.equal(JSON.parse(tagged.stdout), { group_id: 'image:IMG1', tags: ['offer:free-trial'], changed: true });
  const wrong = await runOps(server.db.url, ['creatives', 'tag', '--org', creatives.organizationId, 'image:IMG1', 'mood:calm']);
  assert.is(wrong.code, 2);
  assert.match(wrong.stderr, /validation_error/);
  await settleReports(server);
  const res = await server.request('GET', `/creatives/report?to=${TO}&tag=offer:free-trial`, { key: creatives.key });
  assert.equal(res.body.rows.map((r: any) => [r.group_id, r.tags]), [['image:IMG1', ['offer:free-trial']]]);
});

test('ops reports creative --json prints the endpoint\'s document for the same parameters', async (ctx) => {
  const { server, creatives } = ctx;
  await settleReports(server);
  const api = await server.request('GET', `/creatives/report?to=${TO}&weeks=5`, { key: creatives.key });
  const cli = await runOps(server.db.url, ['reports', 'creative', '--org', creatives.organizationId, '--to', TO, '--weeks', '5', '--json']);
  assert.is(cli.code, 0, cli.stderr);
  assert.equal(withoutMoment(JSON.parse(cli.stdout)), withoutMoment(api.body));
});

test.run();
