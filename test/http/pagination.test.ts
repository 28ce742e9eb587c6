import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { createItemsTable, newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp; org: TestOrg; other: TestOrg; ids: string[] }
const test = suite<Ctx>('Pagination: keyset pages with signed cursors bound to their list');

const BASE = Date.parse('2026-03-01T10:00:00.000Z');

async function seed(ctx: Ctx, org: TestOrg, count: number, prefix: string): Promise<{ id: string; name: string; at: string }[]> {
  const items = Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${String(i).padStart(2, '0')}`,
    name: i % 2 ? 'red' : 'blue',
    // Pairs share a time, so the id decides their order.
    at: new Date(BASE + Math.floor(i / 2) * 1000 + 7).toISOString(),
  }));
  for (const item of items) {
    await ctx.server.services.pool.query('INSERT INTO test_items (organization_id, id, name, updated_at) VALUES ($1, $2, $3, $4)', [org.organizationId, item.id, item.name, item.at]);
  }
  return items;
}

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await createItemsTable(ctx.server.services.pool);
  ctx.app = await startApp(ctx.server.services, { extraRoutes: testRoutes(newProbe()) });
  ctx.org = await ctx.server.newOrganization();
  ctx.other = await ctx.server.newOrganization();
  ctx.ids = (await seed(ctx, ctx.org, 7, 'a')).map((i) => i.id);
  await seed(ctx, ctx.other, 3, 'b');
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

async function pageAll(ctx: Ctx, query: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = query ? '&' : '';
    const res: { status: number; body: any } = await ctx.app.request('GET', `/test/items?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, { key: ctx.org.key });
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.equal(Object.keys(res.body).sort(), ['data', 'has_more', 'next_cursor']);
    assert.is(res.body.has_more, res.body.next_cursor !== null);
    ids.push(...res.body.data.map((i: { id: string }) => i.id));
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor);
  return { ids, pages };
}

test('pages through a list newest first by default and oldest first with order=asc, ties broken by id', async (ctx) => {
  const desc = await pageAll(ctx, 'limit=3');
  assert.equal(desc.ids, [...ctx.ids].reverse());
  assert.is(desc.pages, 3);
  const asc = await pageAll(ctx, 'limit=2&order=asc');
  assert.equal(asc.ids, ctx.ids);
  assert.is(asc.pages, 4);
});

test('filters and updated_since (inclusive) narrow the list; other organisations never appear', async (ctx) => {
  assert.equal((await pageAll(ctx, 'limit=2&name=red')).ids, ['a-05', 'a-03', 'a-01']);
  const since = new Date(BASE + 2000 + 7).toISOString();
  assert.equal((await pageAll(ctx, `limit=2&order=asc&updated_since=${since}`)).ids, ['a-04', 'a-05', 'a-06']);
});

test('updated_since finer than the millisecond (as Python writes it) leaves out records changed before it', async (ctx) => {
  // a-04 and a-05 changed at 10:00:02.007; 100 microseconds later they are past, a-06 (10:00:03.007) is not.
  for (const since of ['2026-03-01T10:00:02.0071Z', '2026-03-01T12:00:02.007100+02:00']) {
    assert.equal((await pageAll(ctx, `limit=2&order=asc&updated_since=${encodeURIComponent(since)}`)).ids, ['a-06'], since);
  }
  assert.equal((await pageAll(ctx, `limit=9&order=asc&updated_since=${encodeURIComponent('2026-03-01T10:00:02.007000Z')}`)).ids.slice(0, 2), ['a-04', 'a-05']);
});

test('limit is 1-100 with a default of 25', async (ctx) => {
  const many = await ctx.server.newOrganization();
  await seed(ctx, many, 27, 'm');
  const first = await ctx.app.request('GET', '/test/items', { key: many.key });
  assert.is(first.body.data.length, 25);
  assert.is(first.body.has_more, true);
  assert.is((await ctx.app.request('GET', '/test/items?limit=100', { key: many.key })).body.data.length, 27);
  for (const bad of ['0', '101', 'ten', '2.5']) {
    const res = await ctx.app.request('GET', `/test/items?limit=${bad}`, { key: many.key });
    assert.is(res.status, 400, bad);
    assert.is(res.body.error.code, 'validation_error');
    assert.is(res.body.error.details.fields[0].field, 'limit');
  }
});

test('a cursor from another list, filter, order, organisation, or an altered one is 400 invalid_cursor', async (ctx) => {
  const first = await ctx.app.request('GET', '/test/items?limit=2&name=red', { key: ctx.org.key });
  const cursor: string = first.body.next_cursor;
  const ok = await ctx.app.request('GET', `/test/items?limit=1&name=red&cursor=${cursor}`, { key: ctx.org.key });
  assert.is(ok.status, 200, 'a different page size is the same list');
  const [payload, mac] = cursor.split('.');
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), i: 'a-00' })).toString('base64url');
  const attempts: [string, string, string][] = [
    ['another list', '/test/others?limit=2&name=red', ctx.org.key],
    ['another filter', '/test/items?limit=2&name=blue', ctx.org.key],
    ['no filter', '/test/items?limit=2', ctx.org.key],
    ['another order', '/test/items?limit=2&name=red&order=asc', ctx.org.key],
    ['another updated_since', '/test/items?limit=2&name=red&updated_since=2020-01-01T00:00:00Z', ctx.org.key],
    ['another organisation', '/test/items?limit=2&name=red', ctx.other.key],
  ];
  for (const [why, path, key] of attempts) {
    const res = await ctx.app.request('GET', `${path}&cursor=${cursor}`, { key });
    assert.is(res.status, 400, why);
    assert.is(res.body.error.code, 'invalid_cursor', why);
  }
  for (const bad of [flip(payload, 5) + '.' + mac, payload + '.' + flip(mac, 3), `${forged}.${mac}`, `${cursor}.x`, 'garbage', 'x'.repeat(3000)]) {
    const res = await ctx.app.request('GET', `/test/items?limit=2&name=red&cursor=${encodeURIComponent(bad)}`, { key: ctx.org.key });
    assert.is(res.status, 400, bad.slice(0, 40));
    assert.is(res.body.error.code, 'invalid_cursor', bad.slice(0, 40));
  }
});

test('updated_since binds a cursor by the time it names, not by how it is written', async (ctx) => {
  // 2026-03-01T10:00:02.007Z, written four ways: UTC with and without milliseconds, and two offsets.
  const spellings = ['2026-03-01T10:00:02.007Z', '2026-03-01T10:00:02.0070Z', '2026-03-01T12:00:02.007+02:00', '2026-03-01T05:30:02.007-04:30'];
  const first = await ctx.app.request('GET', `/test/items?limit=1&order=asc&updated_since=${encodeURIComponent(spellings[0])}`, { key: ctx.org.key });
  assert.equal(first.body.data.map((i: { id: string }) => i.id), ['a-04']);
  for (const since of spellings) {
    const next = await ctx.app.request('GET', `/test/items?limit=5&order=asc&updated_since=${encodeURIComponent(since)}&cursor=${first.body.next_cursor}`, { key: ctx.org.key });
    assert.is(next.status, 200, since);
    assert.equal(next.body.data.map((i: { id: string }) => i.id), ['a-05', 'a-06'], since);
  }
  const later = await ctx.app.request('GET', `/test/items?limit=5&order=asc&updated_since=2026-03-01T10:00:02.008Z&cursor=${first.body.next_cursor}`, { key: ctx.org.key });
  assert.is(later.body.error.code, 'invalid_cursor', 'another time is another filter');
});

test('pages are keyset pages: a row changed between two pages does not shift the next page', async (ctx) => {
  const org = await ctx.server.newOrganization();
  const items = await seed(ctx, org, 6, 'k');
  const first = await ctx.app.request('GET', '/test/items?limit=3', { key: org.key });
  assert.equal(first.body.data.map((i: { id: string }) => i.id), ['k-05', 'k-04', 'k-03']);
  // The newest row moves to the top again and a new row arrives: with OFFSET, page 2 would repeat k-03.
  await ctx.server.services.pool.query('INSERT INTO test_items (organization_id, id, name, updated_at) VALUES ($1, $2, $3, $4)', [org.organizationId, 'k-99', 'red', new Date(BASE + 60_000).toISOString()]);
  const second = await ctx.app.request('GET', `/test/items?limit=3&cursor=${first.body.next_cursor}`, { key: org.key });
  assert.equal(second.body.data.map((i: { id: string }) => i.id), ['k-02', 'k-01', 'k-00']);
  assert.equal(second.body, { data: second.body.data, next_cursor: null, has_more: false });
  assert.is(second.body.data[2].updated_at, items[0].at);
});

// The document's pattern for updated_since is the server's reading of it: every form the list takes (a bare day, no
// offset, +0200, no seconds) matches it, and what the list refuses does not. It published the strict
// offset-required date-time pattern, against its own description ("without an offset it is UTC").
test('updated_since: the forms the list accepts are the ones the OpenAPI document\'s pattern allows', async (ctx) => {
  const document = (await ctx.app.request('GET', '/openapi.json')).body;
  const param = document.paths['/contacts'].get.parameters.find((p: { name?: string }) => p.name === 'updated_since');
  assert.is(param.schema.format, 'date-time');
  const pattern = new RegExp(param.schema.pattern, 'u');
  const accepted = ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.123Z', '2026-03-01T12:00:00+02:00', '2026-03-01T12:00+0200', '2026-03-01T12:00:00+02', '2026-03-01T10:00:00', '2026-03-01T10:00', '2026-03-01', '2026-03-01 10:00:00z'];
  const refused = ['yesterday', '2026-03-01T10', '03/01/2026', '2026-03-01T10:00:00 UTC', '1772359200'];
  for (const value of [...accepted, ...refused]) {
    const res = await ctx.server.request('GET', `/contacts?updated_since=${encodeURIComponent(value)}`, { key: ctx.org.key });
    assert.is(res.status, accepted.includes(value) ? 200 : 400, `${value}: ${JSON.stringify(res.body)}`);
    assert.is(pattern.test(value), accepted.includes(value), `${value} against ${param.schema.pattern}`);
  }
});

test.run();
