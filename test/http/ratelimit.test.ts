import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { frozenClock, startApp, type ExtraApp } from './support/app.ts';

interface Ctx { server: TestServer; a: ExtraApp; b: ExtraApp; clock: ReturnType<typeof frozenClock> }
const test = suite<Ctx>('Rate limit: 120 requests a minute per key, shared by API processes');

// Two app instances on one database, as two API processes; a clock stopped mid-minute so that the
// requests of a test cannot straddle two windows.
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  ctx.clock = frozenClock(new Date(minute + 20_250));
  const services = { ...ctx.server.services, now: ctx.clock.now };
  ctx.a = await startApp(services);
  ctx.b = await startApp(services);
});
test.after(async (ctx) => { await ctx.a.stop(); await ctx.b.stop(); await ctx.server.stop(); });

const limitHeaders = (res: { headers: Headers }) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: res.headers.get('x-ratelimit-reset'),
});

test('the 121st request of a minute is 429 rate_limited with Retry-After, counted across both instances', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const windowEnd = Math.floor(ctx.clock.now().getTime() / 60_000) * 60 + 60;
  for (let i = 1; i <= 120; i++) {
    const app = i % 2 ? ctx.a : ctx.b;
    const res = await app.request('GET', '/me', { key: org.key });
    assert.is(res.status, 200, `request ${i}`);
    assert.equal(limitHeaders(res), { limit: '120', remaining: String(120 - i), reset: String(windowEnd) });
  }
  for (const app of [ctx.a, ctx.b]) {
    const res = await app.request('GET', '/me', { key: org.key, headers: { 'accept-language': 'en' } });
    assert.is(res.status, 429);
    assert.is(res.body.error.code, 'rate_limited');
    assert.equal(limitHeaders(res), { limit: '120', remaining: '0', reset: String(windowEnd) });
    // 20.25 s into the minute: 39.75 s left, in whole seconds.
    assert.is(res.headers.get('retry-after'), '40');
  }
  // Another key of the same organisation has a count of its own.
  const other = await ctx.server.newKey(org.organizationId, ['contacts:read']);
  assert.is((await ctx.a.request('GET', '/me', { key: other.key })).status, 200);
});

test('a burst of concurrent requests is counted exactly: 120 answered, the rest refused', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const replies = await Promise.all(Array.from({ length: 130 }, (_, i) => (i % 2 ? ctx.a : ctx.b).request('GET', '/me', { key: org.key })));
  const answered = replies.filter((r) => r.status === 200);
  assert.is(answered.length, 120);
  assert.is(replies.filter((r) => r.status === 429).length, 10);
  // Each answered request got a number of its own in the window.
  const remaining = answered.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
  assert.equal(remaining, Array.from({ length: 120 }, (_, i) => i));
});

test('the next minute starts a new count', async (ctx) => {
  const org = await ctx.server.newOrganization();
  for (let i = 0; i < 121; i++) await ctx.a.request('GET', '/me', { key: org.key });
  assert.is((await ctx.b.request('GET', '/me', { key: org.key })).status, 429);
  ctx.clock.advance(60_000);
  const res = await ctx.b.request('GET', '/me', { key: org.key });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-ratelimit-remaining'), '119');
  // The window just closed was dropped when the new one began.
  const { rows } = await ctx.server.services.pool.query('SELECT count(*)::int AS n FROM rate_limit_windows WHERE organization_id = $1', [org.organizationId]);
  assert.is(rows[0].n, 1);
});

test('every answer carries the headers, errors included; requests without a valid key count per address', async (ctx) => {
  const org = await ctx.server.newOrganization({ scopes: [] });
  const unknown = await ctx.a.request('GET', '/test-nothing', { key: org.key });
  assert.is(unknown.status, 404);
  assert.is(unknown.headers.get('x-ratelimit-limit'), '120');
  const invalid = await ctx.a.request('POST', '/me', { key: org.key, body: '{nope' });
  assert.is(invalid.status, 404);
  assert.ok(invalid.headers.get('x-ratelimit-remaining'));
  const first = await ctx.a.request('GET', '/me', {});
  assert.is(first.status, 401);
  const second = await ctx.b.request('GET', '/me', { headers: { authorization: 'Bearer wrong' } });
  assert.is(second.status, 401);
  assert.is(second.headers.get('x-ratelimit-limit'), '1200');
  assert.is(Number(second.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1);
  const open = await ctx.a.request('GET', '/openapi.json');
  assert.is(open.status, 200);
  assert.is(Number(open.headers.get('x-ratelimit-remaining')), Number(second.headers.get('x-ratelimit-remaining')) - 1);
});

test('an address that guesses keys is stopped at ten times the key limit', async (ctx) => {
  ctx.clock.advance(60_000);
  // 120 unauthenticated requests of one address are all answered 401: the key limit is not the address's.
  for (let i = 0; i < 120; i++) assert.is((await ctx.a.request('GET', '/me')).status, 401);
  const rows = await ctx.server.services.pool.query<{ n: number }>(
    "UPDATE rate_limit_windows SET count = count + 1079 WHERE organization_id = '' AND window_minute = $1 RETURNING count AS n",
    [Math.floor(ctx.clock.now().getTime() / 60_000)],
  );
  assert.is(rows.rows[0].n, 1199);
  assert.is((await ctx.a.request('GET', '/me')).status, 401);
  const res = await ctx.b.request('GET', '/me', { headers: { authorization: 'Bearer csk_abcdefghij_' + 'A'.repeat(43) } });
  assert.is(res.status, 429);
  assert.is(res.body.error.code, 'rate_limited');
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
  // A valid key is counted on its own and is not held back by the address.
  const org = await ctx.server.newOrganization();
  assert.is((await ctx.a.request('GET', '/me', { key: org.key })).status, 200);
});

test.run();
