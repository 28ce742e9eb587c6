// Reports: "today" is the organisation's local day at the request, in zones far from UTC, at a 45-minute
// offset and around a 30-minute DST change; ranges count calendar days (a leap day is one of the 366).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../support/server.ts';
import { startReportServer } from './support.ts';
import { addDays } from '../../projections/reporting_shared/days.ts';

const test = suite<{ server: TestServer }>('Reports: today is the organisation\'s local day; ranges count calendar days');
test.before(async (ctx) => { ctx.server = await startReportServer(); });
test.after(async (ctx) => { await ctx.server.stop(); });

/** [zone, the request's instant, today there] */
const TODAYS: [string, string, string][] = [
  ['Pacific/Kiritimati', '2026-11-27T10:30:00Z', '2026-11-28'],
  ['Pacific/Pago_Pago', '2026-11-27T10:30:00Z', '2026-11-26'],
  ['Asia/Kathmandu', '2026-11-27T18:14:59Z', '2026-11-27'],
  ['Asia/Kathmandu', '2026-11-27T18:15:00Z', '2026-11-28'],
  ['Europe/Warsaw', '2026-03-28T23:30:00Z', '2026-03-29'],
  // Lord Howe moves from +10:30 to +11 at 02:00 on 4 October: that day starts at 13:30Z on the 3rd.
  ['Australia/Lord_Howe', '2026-10-03T13:29:59Z', '2026-10-03'],
  ['Australia/Lord_Howe', '2026-10-03T13:30:00Z', '2026-10-04'],
];

test('the default range ends today in the organisation\'s zone; maturing covers its last 30 days', async (ctx) => {
  const seen: string[] = [];
  const want: string[] = [];
  try {
    for (const [zone, now, today] of TODAYS) {
      const org = await ctx.server.newOrganization({ timezone: zone, scopes: ['campaigns:read', 'creatives:read'] });
      ctx.server.services.now = () => new Date(now);
      const get = async (path: string) => (await ctx.server.request('GET', path, { key: org.key })).body;
      const campaign = await get('/campaigns/report');
      const creative = await get('/creatives/report');
      const lastMaturing = await get(`/campaigns/report?from=2026-01-01&to=${addDays(today, -29)}`);
      const firstMature = await get(`/campaigns/report?from=2026-01-01&to=${addDays(today, -30)}`);
      seen.push(`${zone} ${now}: ${campaign.from}..${campaign.to} maturing ${campaign.maturing}/${lastMaturing.maturing}/${firstMature.maturing}, weeks end ${creative.weeks.at(-1).to}`);
      want.push(`${zone} ${now}: ${addDays(today, -30)}..${today} maturing true/true/false, weeks end ${today}`);
    }
  } finally {
    ctx.server.services.now = () => new Date();
  }
  assert.equal(seen, want);
});

test('366 days with the leap day are one range, 367 are not; the previous period has as many days', async (ctx) => {
  const org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', scopes: ['campaigns:read'] });
  const get = (query: string) => ctx.server.request('GET', `/campaigns/report?${query}`, { key: org.key });
  const leapYear = await get('from=2027-03-01&to=2028-02-29');
  assert.is(leapYear.status, 200, JSON.stringify(leapYear.body));
  assert.equal(leapYear.body.previous, { from: '2026-02-28', to: '2027-02-28' });
  const fromLeapDay = await get('from=2028-02-29&to=2029-02-28');
  assert.is(fromLeapDay.status, 200);
  assert.equal(fromLeapDay.body.previous, { from: '2027-02-28', to: '2028-02-28' });
  for (const query of ['from=2027-02-28&to=2028-02-29', 'from=2028-02-29&to=2029-03-01']) {
    const res = await get(query);
    assert.is(res.status, 400, query);
    assert.is(res.body.error.code, 'validation_error', query);
  }
  // The default from is 30 days before to, across the leap day.
  const march = await get('to=2028-03-01');
  assert.equal([march.body.from, march.body.to], ['2028-01-31', '2028-03-01']);
});

test.run();
