import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type TestOrg } from '../support/server.ts';
import { cancelJob, enqueueJob } from '../../src/processes/jobs/enqueue.ts';

const test = suite<{ server: TestServer; a: TestOrg; b: TestOrg }>('GET /jobs and GET /jobs/{number}');

const JOB_FIELDS = ['attempts', 'created', 'error', 'finished_at', 'kind', 'label', 'number', 'priority', 'progress', 'run_after',
  'started_at', 'status', 'summary', 'trigger', 'updated_at'];

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.a = await ctx.server.newOrganization();
  ctx.b = await ctx.server.newOrganization();
  // Kinds no worker runs, so every job stays as the test leaves it.
  for (let i = 0; i < 30; i++) {
    await enqueueJob(ctx.server.services, { organizationId: ctx.a.organizationId, kind: 'test_list', scope: `item:${i}`, trigger: i % 2 ? 'schedule' : 'api' },
      { organizationId: ctx.a.organizationId, actor: 'test' });
  }
  for (const n of [3, 7, 11]) await cancelJob(ctx.server.services, ctx.a.organizationId, n, { organizationId: ctx.a.organizationId, actor: 'test' });
  await enqueueJob(ctx.server.services, { organizationId: ctx.b.organizationId, kind: 'test_list', scope: 'only', trigger: 'operator' },
    { organizationId: ctx.b.organizationId, actor: 'test' });
  await ctx.server.settle();
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('a job has every field of the specification', async ({ server, a }) => {
  const res = await server.request('GET', '/jobs/2', { key: a.key });
  assert.is(res.status, 200);
  assert.equal(Object.keys(res.body).sort(), JOB_FIELDS);
  assert.equal({ ...res.body, created: undefined, updated_at: undefined, run_after: undefined }, {
    number: 2, kind: 'test_list', label: 'test_list (item:1)', status: 'queued', priority: 'background', trigger: 'schedule',
    progress: { done: 0, text: '' }, attempts: 0, error: '', summary: '', started_at: null, finished_at: null,
    created: undefined, updated_at: undefined, run_after: undefined,
  });
  assert.is(res.body.run_after, res.body.created);
});

test('pages through every job once, newest change first', async ({ server, a }) => {
  const first = await server.request('GET', '/jobs', { key: a.key });
  assert.is(first.status, 200);
  assert.is(first.body.data.length, 25);
  assert.is(first.body.has_more, true);
  const second = await server.request('GET', `/jobs?cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: a.key });
  assert.is(second.body.data.length, 5);
  assert.equal([second.body.has_more, second.body.next_cursor], [false, null]);
  const all = [...first.body.data, ...second.body.data];
  assert.equal(all.map((j: any) => j.number).sort((x: number, y: number) => x - y), Array.from({ length: 30 }, (_, i) => i + 1));
  const keys = all.map((j: any) => `${j.updated_at}#${String(j.number).padStart(4, '0')}`);
  assert.equal(keys, [...keys].sort().reverse(), 'ordered by updated_at then number, descending');
  assert.equal(all.slice(0, 3).map((j: any) => j.number).sort((x: number, y: number) => x - y), [3, 7, 11], 'the cancelled jobs changed last');

  const asc = await server.request('GET', '/jobs?order=asc&limit=100', { key: a.key });
  assert.equal(asc.body.data.map((j: any) => j.number), [...all].reverse().map((j: any) => j.number));
});

test('filters by status and by updated_since', async ({ server, a }) => {
  const cancelled = await server.request('GET', '/jobs?status=cancelled', { key: a.key });
  assert.equal(cancelled.body.data.map((j: any) => j.number).sort((x: number, y: number) => x - y), [3, 7, 11]);
  assert.ok(cancelled.body.data.every((j: any) => j.status === 'cancelled' && j.finished_at !== null));
  const since = cancelled.body.data.map((j: any) => j.updated_at).sort()[0];
  const recent = await server.request('GET', `/jobs?updated_since=${encodeURIComponent(since)}`, { key: a.key });
  assert.ok(recent.body.data.length >= 3 && recent.body.data.length < 30);
  assert.ok(recent.body.data.every((j: any) => j.updated_at >= since));
  const bad = await server.request('GET', '/jobs?status=paused', { key: a.key });
  assert.equal([bad.status, bad.body.error.code], [400, 'validation_error']);
});

test('another organisation sees none of the jobs', async ({ server, a, b }) => {
  const list = await server.request('GET', '/jobs?limit=100', { key: b.key });
  assert.equal(list.body.data.map((j: any) => j.number), [1]);
  assert.is(list.body.data[0].priority, 'user');
  const foreign = await server.request('GET', '/jobs/30', { key: b.key });
  assert.equal([foreign.status, foreign.body.error.code], [404, 'not_found']);
  const page = await server.request('GET', '/jobs?limit=1', { key: a.key });
  const stolen = await server.request('GET', `/jobs?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: b.key });
  assert.equal([stolen.status, stolen.body.error.code], [400, 'invalid_cursor']);
  const otherFilter = await server.request('GET', `/jobs?limit=1&status=queued&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: a.key });
  assert.equal([otherFilter.status, otherFilter.body.error.code], [400, 'invalid_cursor']);
});

test('needs the jobs:read scope and a numeric number', async ({ server, a }) => {
  const narrow = await server.newKey(a.organizationId, ['contacts:read']);
  const res = await server.request('GET', '/jobs', { key: narrow.key });
  assert.equal([res.status, res.body.error.code, res.body.error.details?.required_scope], [403, 'insufficient_scope', 'jobs:read']);
  // Named in words: it read "Invalid input: expected number, received string".
  for (const number of ['abc', '2.5']) {
    const bad = await server.request('GET', `/jobs/${number}`, { key: a.key, headers: { 'accept-language': 'en' } });
    assert.equal([bad.status, bad.body.error.code, bad.body.error.details?.fields], [400, 'validation_error', [{ field: 'number', message: 'must be a whole number' }]], number);
  }
  // A number past any job (beyond 2^53 too) is a job that does not exist, as 999 is: it read 400 "must be a whole number".
  // So is one too long for a double (over 308 digits): Number() made it Infinity, which read "must be a whole number".
  for (const number of ['999', '0', '-1', '2147483648', '99999999999999999999', '9'.repeat(400), `-${'9'.repeat(400)}`]) {
    const missing = await server.request('GET', `/jobs/${number}`, { key: a.key });
    assert.equal([missing.status, missing.body.error.code], [404, 'not_found'], number);
    // Echoed only when it is the number sent: past 2^53 it would read 100000000000000000000.
    assert.equal(missing.body.error.details, number.length < 16 ? { number: Number(number) } : undefined, number);
  }
  // limit names its bound for such a number too, as for limit=101.
  const long = await server.request('GET', `/jobs?limit=${'9'.repeat(400)}`, { key: a.key, headers: { 'accept-language': 'en' } });
  assert.equal([long.status, long.body.error.details?.fields], [400, [{ field: 'limit', message: 'Too big: expected number to be <=100' }]]);
});

test.run();
