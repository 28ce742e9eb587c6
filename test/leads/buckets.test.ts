// GET /leads with from and to walks the 30-day submission buckets the window touches (queries/leads.ts,
// projections/contacts/0007): leads on both sides of bucket edges, windows whose bounds fall on an edge,
// day bounds in zones 14 and 12 hours from UTC, windows over many buckets (planned the other way) and
// reversed ones answer exactly the leads the whole list holds in that window, in list order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { windowBuckets } from '../../queries/leads.ts';
import { ALL_SCOPES } from '../../commands/shared/scopes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { importLead } from './support.ts';

type Lead = { platform_lead_id: string; created_at: string };
const test = suite<{ server: TestServer; orgs: Record<string, { organizationId: string; offsetHours: number }> }>('Leads by submission window across submission buckets');

const BUCKET_MS = 2_592_000_000;
/** 2025-03-13T00:00:00Z: the start of bucket 672, between buckets 671 and 672. */
const EDGE = 672 * BUCKET_MS;
const HOUR = 3_600_000;
/** Submission times around the edge, around the next one, and far from both. */
const TIMES = [
  EDGE - 40 * 24 * HOUR, EDGE - 20 * 24 * HOUR, EDGE - 13 * HOUR, EDGE - 11 * HOUR, EDGE - 1, EDGE, EDGE + 1,
  EDGE + 11 * HOUR, EDGE + 13 * HOUR, EDGE + 10 * 24 * HOUR, EDGE + BUCKET_MS - 1, EDGE + BUCKET_MS, EDGE + 50 * 24 * HOUR,
].map((t) => new Date(t).toISOString());

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.orgs = {};
  for (const [zone, offsetHours] of [['UTC', 0], ['Pacific/Kiritimati', 14], ['Etc/GMT+12', -12]] as const) {
    const org = await ctx.server.newOrganization({ timezone: zone });
    ctx.orgs[zone] = { organizationId: org.organizationId, offsetHours };
    // Imported in an order unlike the submission order, so that list order and window order differ.
    const order = TIMES.map((_, i) => (i * 5) % TIMES.length);
    for (const i of order) {
      const created = TIMES[i].replace(/\.\d{3}Z$/, '+0000');
      await importLead(ctx.server, org, { id: `77${offsetHours + 20}${String(i).padStart(3, '0')}`, email: `b${i}.${offsetHours + 20}@example.com`, created });
    }
  }
});
test.after(async (ctx) => { await ctx.server.stop(); });

async function walk(server: TestServer, key: string, query: string): Promise<Lead[]> {
  const seen: Lead[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { data: Lead[]; next_cursor: string | null } } =
      await server.request('GET', `/leads?${query}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    seen.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}

/** Day D in a zone offsetHours from UTC starts at this instant. */
const dayStart = (day: string, offsetHours: number) => Date.parse(`${day}T00:00:00Z`) - offsetHours * HOUR;

/** The same window, answered by the whole list filtered here. */
async function expected(server: TestServer, key: string, order: 'asc' | 'desc', from: number, to: number): Promise<string[]> {
  const all = await walk(server, key, `limit=100&order=${order}`);
  assert.is(all.length, TIMES.length);
  return all.filter((l) => Date.parse(l.created_at) >= from && Date.parse(l.created_at) <= to).map((l) => l.platform_lead_id);
}

test('windows around a bucket edge: days in three zones, instants and wall-clock times on the edge', async ({ server, orgs }) => {
  const iso = (t: number) => encodeURIComponent(new Date(t).toISOString());
  for (const { organizationId, offsetHours } of Object.values(orgs)) {
    const windows: [string, number, number][] = [
      ['from=2025-03-12&to=2025-03-13', dayStart('2025-03-12', offsetHours), dayStart('2025-03-14', offsetHours) - 1],
      ['from=2025-03-13&to=2025-03-13', dayStart('2025-03-13', offsetHours), dayStart('2025-03-14', offsetHours) - 1],
      ['from=2025-03-12&to=2025-03-12', dayStart('2025-03-12', offsetHours), dayStart('2025-03-13', offsetHours) - 1],
      [`from=${iso(EDGE)}&to=${iso(EDGE)}`, EDGE, EDGE],
      [`from=${iso(EDGE - 1)}&to=${iso(EDGE + 1)}`, EDGE - 1, EDGE + 1],
      [`from=${iso(EDGE + 1)}&to=${iso(EDGE + BUCKET_MS - 1)}`, EDGE + 1, EDGE + BUCKET_MS - 1],
      ['from=2025-03-12T13:00:00&to=2025-03-13T11:00:00', Date.parse('2025-03-12T13:00:00Z') - offsetHours * HOUR, Date.parse('2025-03-13T11:00:00Z') - offsetHours * HOUR],
      ['from=2025-02-01&to=2025-04-30', dayStart('2025-02-01', offsetHours), dayStart('2025-05-01', offsetHours) - 1],
      // Over more buckets than a window walks: planned for its values instead; the same answer.
      ['from=2024-01-01&to=2025-12-31', dayStart('2024-01-01', offsetHours), dayStart('2026-01-01', offsetHours) - 1],
    ];
    for (const [query, from, to] of windows) {
      // A key per window: the walks below take more requests than one key may make in a minute.
      const { key } = await server.newKey(organizationId, [...ALL_SCOPES]);
      for (const order of ['desc', 'asc'] as const) {
        const want = await expected(server, key, order, from, to);
        for (const limit of [1, 3, 100]) {
          const got = (await walk(server, key, `limit=${limit}&order=${order}&${query}`)).map((l) => l.platform_lead_id);
          assert.equal(got, want, `${query} ${order} limit ${limit} (UTC${offsetHours >= 0 ? '+' : ''}${offsetHours})`);
        }
      }
    }
    const { key } = await server.newKey(organizationId, [...ALL_SCOPES]);
    assert.equal(await walk(server, key, 'from=2025-03-14&to=2025-03-12'), []);
  }
});

test('the buckets a window may touch: widened by a day for zones, none beyond twelve', () => {
  assert.equal(windowBuckets({ instant: new Date(EDGE).toISOString() }, { instant: new Date(EDGE).toISOString() }), [672]);
  assert.equal(windowBuckets({ instant: new Date(EDGE - 1).toISOString() }, { instant: new Date(EDGE).toISOString() }), [671, 672]);
  assert.equal(windowBuckets({ day: '2025-03-13' }, { day: '2025-03-13' }), [671, 672]);
  assert.equal(windowBuckets({ day: '2025-03-14' }, { day: '2025-03-20' }), [672]);
  assert.equal(windowBuckets({ day: '2025-03-11' }, { day: '2025-03-11' }), [671, 672]);
  assert.equal(windowBuckets({ local: '2025-03-14T12:00' }, { local: '2025-03-15T00:00:00.5' }), [672]);
  assert.is(windowBuckets({ day: '2025-01-01' }, { day: '2025-12-31' }), null);
  assert.is(windowBuckets({ day: '2025-03-20' }, { day: '2025-03-10' }), null);
});

test.run();
