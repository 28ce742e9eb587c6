// GET /leads with from/to: windows near the newest changes and narrow old ones (planned differently, see
// queries/leads.ts) page through exactly the window's leads in list order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from './support.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Leads by submission window: every page holds exactly the window\'s leads in list order');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'UTC' });
  // Lead i is submitted on day i of January; each import changes it last, so the newest change is the latest day.
  for (let day = 1; day <= 30; day++) {
    await importLead(ctx.server, ctx.org, { id: String(660000 + day), email: `w${day}@example.com`, created: `2025-01-${String(day).padStart(2, '0')}T12:00:00+0000` });
  }
});
test.after(async (ctx) => { await ctx.server.stop(); });

async function walk(server: TestServer, org: TestOrg, query: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { data: { platform_lead_id: string }[]; next_cursor: string | null } } =
      await server.request('GET', `/leads?${query}${cursor ? `&cursor=${cursor}` : ''}`, { key: org.key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    seen.push(...res.body.data.map((l) => l.platform_lead_id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}

/** Platform ids of the leads submitted on days first..last, newest change first. */
const days = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => String(660000 + last - i));

test('a recent window', async ({ server, org }) => {
  assert.equal(await walk(server, org, 'limit=2&from=2025-01-21&to=2025-01-30'), days(21, 30));
  assert.equal(await walk(server, org, 'limit=3&from=2025-01-21'), days(21, 30));
  assert.equal(await walk(server, org, 'limit=2&order=asc&from=2025-01-21&to=2025-01-30'), days(21, 30).reverse());
});

test('an old narrow window, far down the list', async ({ server, org }) => {
  assert.equal(await walk(server, org, 'limit=1&from=2025-01-02&to=2025-01-04'), days(2, 4));
  assert.equal(await walk(server, org, `limit=1&from=${encodeURIComponent('2025-01-02T12:00:00Z')}&to=${encodeURIComponent('2025-01-04T12:00:00Z')}`), days(2, 4));
  assert.equal(await walk(server, org, 'limit=1&to=2025-01-03'), days(1, 3));
  assert.equal(await walk(server, org, 'limit=100&from=2025-02-01'), []);
});

test('a wide window, and one with another filter', async ({ server, org }) => {
  assert.equal(await walk(server, org, 'limit=4&from=2025-01-05&to=2025-01-28'), days(5, 28));
  assert.equal(await walk(server, org, 'limit=4&from=2025-01-05&to=2025-01-28&stage=new'), days(5, 28));
  assert.equal(await walk(server, org, 'limit=4&from=2025-01-05&stage=sold'), []);
});

test('a time finer than the millisecond: from admits only the leads at or after it, to those at or before it', async ({ server, org }) => {
  // Day 2's lead was submitted at 12:00:00.000; 100 microseconds later it is past, 100 before it is still to come.
  assert.equal(await walk(server, org, `limit=5&from=${encodeURIComponent('2025-01-02T12:00:00.0001Z')}&to=2025-01-03`), days(3, 3));
  assert.equal(await walk(server, org, `limit=5&from=${encodeURIComponent('2025-01-01T13:00:00.000000+01:00')}&to=2025-01-02`), days(1, 2));
  assert.equal(await walk(server, org, `limit=5&to=${encodeURIComponent('2025-01-02T11:59:59.9999Z')}`), days(1, 1));
  // The same without an offset (a wall-clock time, as Python's isoformat of a naive datetime writes it).
  assert.equal(await walk(server, org, 'limit=5&from=2025-01-02T12:00:00.000100&to=2025-01-03'), days(3, 3));
  assert.equal(await walk(server, org, 'limit=5&from=2025-01-02T12:00:00.000000&to=2025-01-03'), days(2, 3));
  assert.equal(await walk(server, org, 'limit=5&to=2025-01-02T11:59:59.999900'), days(1, 1));
});

test('a date-time without an offset is a wall-clock time in the organisation\'s zone', async ({ server, org }) => {
  assert.equal(await walk(server, org, 'limit=1&from=2025-01-02T12:00:00&to=2025-01-04T12:00:00'), days(2, 4));
  const warsaw = await server.newOrganization({ timezone: 'Europe/Warsaw' });
  // Submitted at 12:00 UTC, 13:00 in Warsaw (UTC+1 in January).
  await importLead(server, warsaw, { id: '669001', email: 'zone@example.com', created: '2025-01-02T12:00:00+0000' });
  assert.equal(await walk(server, warsaw, 'from=2025-01-02T12:30:00'), ['669001']);
  assert.equal(await walk(server, warsaw, 'from=2025-01-02T13:30:00'), []);
  assert.equal(await walk(server, warsaw, 'to=2025-01-02T13:00:00'), ['669001']);
  assert.equal(await walk(server, warsaw, 'to=2025-01-02T12:59:59'), []);
  const bad = await server.request('GET', '/leads?from=2025-01-02T25:00:00', { key: warsaw.key });
  assert.is(bad.status, 400);
});

test.run();
