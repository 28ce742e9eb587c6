// Leads: a day of GET /leads?from=D&to=D holds exactly the leads the campaign report counts on day D, the
// submission time's local day in the organisation's zone: across 23- and 25-hour days, a 30-minute DST
// (Lord Howe), zones far from UTC, a repeated midnight (Havana) and the zone names PostgreSQL reads as fixed
// abbreviations (CET, EET: no summer time there).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { importLead } from './support.ts';
import { listStatuses } from '../../src/projections/checkpoints.ts';

const test = suite<{ server: TestServer }>('Leads: a list day and a report day hold the same leads, the local day of the zone');
test.before(async (ctx) => { ctx.server = await startTestServer({ JOB_CONCURRENCY: '0' }); });
test.after(async (ctx) => { await ctx.server.stop(); });

/** Submission instants, and the local day each belongs to in the zone. */
const CASES: Record<string, [string, string][]> = {
  // 29 March has 23 hours, 25 October 25 (02:00-02:59 twice).
  'Europe/Warsaw': [['2026-03-28T22:59:59Z', '2026-03-28'], ['2026-03-28T23:00:00Z', '2026-03-29'], ['2026-03-29T21:59:59Z', '2026-03-29'],
    ['2026-03-29T22:00:00Z', '2026-03-30'], ['2026-10-24T21:59:00Z', '2026-10-24'], ['2026-10-24T22:00:00Z', '2026-10-25'],
    ['2026-10-25T00:30:00Z', '2026-10-25'], ['2026-10-25T01:30:00Z', '2026-10-25'], ['2026-10-25T22:59:00Z', '2026-10-25'], ['2026-10-25T23:00:00Z', '2026-10-26']],
  'America/New_York': [['2026-03-08T04:59:00Z', '2026-03-07'], ['2026-03-08T05:00:00Z', '2026-03-08'], ['2026-03-09T03:59:00Z', '2026-03-08'],
    ['2026-03-09T04:00:00Z', '2026-03-09'], ['2026-11-01T03:59:00Z', '2026-10-31'], ['2026-11-01T04:00:00Z', '2026-11-01'], ['2026-11-02T04:59:00Z', '2026-11-01'], ['2026-11-02T05:00:00Z', '2026-11-02']],
  // +11 in summer, +10:30 in winter: 5 April has 24.5 hours, 4 October 23.5.
  'Australia/Lord_Howe': [['2026-04-04T12:59:00Z', '2026-04-04'], ['2026-04-04T13:00:00Z', '2026-04-05'], ['2026-04-05T13:29:00Z', '2026-04-05'],
    ['2026-04-05T13:30:00Z', '2026-04-06'], ['2026-10-03T13:29:00Z', '2026-10-03'], ['2026-10-03T13:30:00Z', '2026-10-04'], ['2026-10-04T12:59:00Z', '2026-10-04'], ['2026-10-04T13:00:00Z', '2026-10-05']],
  // Until 1979 Kiritimati was at -10:40: its midnight fell inside a quarter hour of UTC.
  'Pacific/Kiritimati': [['2026-06-01T09:59:00Z', '2026-06-01'], ['2026-06-01T10:00:00Z', '2026-06-02'], ['1975-06-01T10:39:00Z', '1975-05-31'], ['1975-06-01T10:41:00Z', '1975-06-01']],
  'Asia/Kathmandu': [['2026-06-01T18:14:00Z', '2026-06-01'], ['2026-06-01T18:15:00Z', '2026-06-02']],
  // Cuba leaves summer time at 01:00 back to 00:00 on 1 November: that day starts at the first midnight (04:00Z).
  'America/Havana': [['2026-11-01T03:59:00Z', '2026-10-31'], ['2026-11-01T04:00:00Z', '2026-11-01'], ['2026-11-01T04:30:00Z', '2026-11-01'], ['2026-11-01T05:30:00Z', '2026-11-01']],
  // Chile's summer time starts at midnight: 6 September starts at 01:00 (04:00Z).
  'America/Santiago': [['2026-09-06T03:59:00Z', '2026-09-05'], ['2026-09-06T04:00:00Z', '2026-09-06']],
  'CET': [['2026-07-01T21:30:00Z', '2026-07-01'], ['2026-07-01T22:30:00Z', '2026-07-02']],
  'EET': [['2026-07-01T20:30:00Z', '2026-07-01'], ['2026-07-01T21:30:00Z', '2026-07-02']],
};

let n = 0;
for (const [zone, leads] of Object.entries(CASES)) {
  test(`${zone}: each day lists and reports its own leads`, async (ctx) => {
    const org = await ctx.server.newOrganization({ timezone: zone });
    // Every other lead has an ad (counted in totals), the rest are organic.
    for (const [created] of leads) {
      n += 1;
      await importLead(ctx.server, org, { id: `tz${n}`, created: created.replace('Z', '+0000'), email: `tz${n}@example.com`, ...(n % 2 ? { ad: `ad${n}`, campaign: 'c1' } : {}) });
    }
    const counts: string[] = [];
    const wanted: string[] = [];
    for (const day of [...new Set(leads.map(([, d]) => d))].sort()) {
      const list = await ctx.server.request('GET', `/leads?from=${day}&to=${day}&limit=100`, { key: org.key });
      const report = await ctx.server.request('GET', `/campaigns/report?from=${day}&to=${day}`, { key: org.key });
      assert.is(report.status, 200, JSON.stringify(report.body));
      const reported = report.body.organic.leads + report.body.totals.reduce((sum: number, t: { current: { leads: number } }) => sum + t.current.leads, 0);
      counts.push(`${day}: list ${list.body.data.length}, report ${reported}`);
      const want = leads.filter(([, d]) => d === day).length;
      wanted.push(`${day}: list ${want}, report ${want}`);
    }
    assert.equal(counts, wanted);
  });
}

test('a wall-clock bound a DST change skips reads as the offset before it; one it repeats is its first occurrence', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw' });
  const at = ['2026-03-29T01:29:59Z', '2026-03-29T01:30:00Z', '2026-10-25T00:30:00Z', '2026-10-25T00:30:01Z'];
  for (const created of at) {
    n += 1;
    await importLead(ctx.server, org, { id: `tz${n}`, created: created.replace('Z', '+0000'), email: `tz${n}@example.com` });
  }
  const submitted = async (query: string) => {
    const res = await ctx.server.request('GET', `/leads?${query}&limit=100`, { key: org.key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    return res.body.data.map((l: { created_at: string }) => l.created_at).sort();
  };
  // 02:30 on 29 March does not exist: read at +01:00, it is 03:30 summer time (01:30Z).
  assert.equal(await submitted('from=2026-03-29T02:30:00&to=2026-03-29T23:00:00'), ['2026-03-29T01:30:00.000Z']);
  // 02:30 on 25 October comes twice: the first (summer time, 00:30Z) ends the range.
  assert.equal(await submitted('from=2026-10-25T00:00:00&to=2026-10-25T02:30:00'), ['2026-10-25T00:30:00.000Z']);
});

test('a lead submitted before the year 1000 is listed and counted on no report day; the reporting projector keeps running', async (ctx) => {
  // Intl wrote its local day "99-06-01", which PostgreSQL refused: reporting_leads stopped for every organisation.
  const org = await ctx.server.newOrganization({ timezone: 'America/New_York' });
  for (const created of ['0099-06-01T10:00:00+0000', '0001-01-01T01:00:00+0000']) {
    n += 1;
    await importLead(ctx.server, org, { id: `tz${n}`, created, email: `tz${n}@example.com` });
  }
  const failed = (await listStatuses(ctx.server.services.pool)).filter((p) => p.status !== 'running');
  assert.equal(failed.map((p) => `${p.name}: ${p.error}`), []);
  const listed = await ctx.server.request('GET', '/leads?from=0001-01-01T00:00:00Z&to=0099-12-31', { key: org.key });
  assert.equal(listed.body.data.map((l: { created_at: string }) => l.created_at).sort(), ['0001-01-01T01:00:00.000Z', '0099-06-01T10:00:00.000Z']);
  n += 1;
  await importLead(ctx.server, org, { id: `tz${n}`, created: '2026-06-01T12:00:00+0000', email: `tz${n}@example.com` });
  const report = await ctx.server.request('GET', '/campaigns/report?from=2026-06-01&to=2026-06-01', { key: org.key });
  assert.is(report.body.organic.leads, 1);
});

test.run();
