// Conformance: a caller's time outside the years 0001-9999 (UTC) - a year 0000 that JavaScript writes and
// PostgreSQL refuses - is 400 validation_error wherever a time or day is taken, never a 500 and never an
// event that stops a projector for every organisation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listStatuses } from '../../src/projections/checkpoints.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { runOps } from '../reports/cli.ts';

interface Ctx { server: TestServer; org: TestOrg; contactId: string }
const test = suite<Ctx>('Conformance: times before the year 0001 are a validation_error, not a 500 or a stopped projector');

const BEFORE_YEAR_ONE = ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00'];

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
  const contact = await ctx.server.request('POST', '/contacts', { key: ctx.org.key, body: { email: 'ancient@example.com' } });
  assert.is(contact.status, 201);
  ctx.contactId = contact.body.id;
});
test.after(async (ctx) => { await ctx.server.stop(); });

/** Each refused read answers 400 validation_error, each accepted one 200. */
async function readsAnswer(ctx: Ctx, refused: string[], accepted: string[]): Promise<void> {
  for (const path of refused) {
    const res = await ctx.server.request('GET', path, { key: ctx.org.key });
    assert.is(res.status, 400, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'validation_error', path);
  }
  for (const path of accepted) {
    const res = await ctx.server.request('GET', path, { key: ctx.org.key });
    assert.is(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

test('a note dated before the year 0001 is refused; the contacts projector keeps running', async (ctx) => {
  for (const time of BEFORE_YEAR_ONE) {
    const res = await ctx.server.request('POST', `/contacts/${ctx.contactId}/notes`, { key: ctx.org.key, body: { text: 'old', time } });
    assert.is(res.status, 400, `${time}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'validation_error');
    assert.is(res.body.error.details.field, 'time');
  }
  const early = await ctx.server.request('POST', `/contacts/${ctx.contactId}/notes`, { key: ctx.org.key, body: { text: 'early', time: '0001-01-01T00:00:00Z' } });
  assert.is(early.status, 201);
  await ctx.server.settle();
  const failed = (await listStatuses(ctx.server.services.pool)).filter((p) => p.status !== 'running');
  assert.equal(failed.map((p) => `${p.name}: ${p.error}`), []);
  const after = await ctx.server.request('POST', '/contacts', { key: ctx.org.key, body: { email: 'after@example.com' } });
  const read = await ctx.server.request('GET', `/contacts/${after.body.id}`, { key: ctx.org.key });
  assert.is(read.status, 200);
});

test('updated_since, the lead window and report days before the year 0001 are validation_error, not 500', async (ctx) => {
  const refused: string[] = [
    ...BEFORE_YEAR_ONE.flatMap((t) => [`/contacts?updated_since=${encodeURIComponent(t)}`, `/jobs?updated_since=${encodeURIComponent(t)}`,
      `/leads?from=${encodeURIComponent(t)}`, `/leads?to=${encodeURIComponent(t)}`]),
    '/leads?from=0000-01-01', '/leads?to=0000-12-31', '/leads?from=0000-06-01T10:00:00',
    '/campaigns/report?from=0001-01-01&to=0001-12-31', '/campaigns/report?from=0000-01-01&to=0000-01-02',
    '/creatives/report?from=0001-01-01&to=0001-01-02', '/creatives/report?to=0001-01-02', '/campaigns/report?from=1969-12-31',
  ];
  await readsAnswer(ctx, refused, ['/contacts?updated_since=0001-01-01T00:00:00Z', '/leads?from=0001-01-01', '/campaigns/report?from=1970-01-01&to=1970-12-31']);
});

test('updated_since and the lead window finer than the millisecond in the last millisecond of 9999 are read, not 500', async (ctx) => {
  // Rounded up to the next millisecond (the read models keep milliseconds), 9999-12-31T23:59:59.9999Z was the year 10000,
  // which toISOString writes +010000-01-01T00:00:00.000Z and PostgreSQL refuses.
  const last = ['9999-12-31T23:59:59.9999Z', '9999-12-31T23:59:59.999001Z', '9999-12-31T23:59:59.9999'];
  await readsAnswer(ctx, [], [
    ...last.flatMap((t) => [`/contacts?updated_since=${encodeURIComponent(t)}`, `/jobs?updated_since=${encodeURIComponent(t)}`,
      `/events?updated_since=${encodeURIComponent(t)}`, `/deliveries?updated_since=${encodeURIComponent(t)}`, `/webhooks?updated_since=${encodeURIComponent(t)}`,
      `/leads?updated_since=${encodeURIComponent(t)}`, `/leads?from=${encodeURIComponent(t)}`]),
  ]);
  const list = await ctx.server.request('GET', `/contacts?updated_since=${encodeURIComponent(last[0])}`, { key: ctx.org.key });
  assert.equal(list.body.data, []);
});

test('ops key create --expires before the year 0001 exits 2 and creates no key', async (ctx) => {
  const res = await runOps(ctx.server.db.url, ['key', 'create', '--org', ctx.org.organizationId, '--name', 'old', '--scopes', 'contacts:read', '--expires', '0000-06-01T00:00:00Z', '--json']);
  assert.is(res.code, 2, res.stderr);
  assert.is(res.stdout, '');
  assert.match(res.stderr, /--expires/);
  const list = await runOps(ctx.server.db.url, ['key', 'list', '--org', ctx.org.organizationId, '--json']);
  assert.equal((JSON.parse(list.stdout) as { name: string }[]).filter((k) => k.name === 'old'), []);
  const failed = (await listStatuses(ctx.server.services.pool)).filter((p) => p.status !== 'running');
  assert.equal(failed, []);
});

test('report days past 9998-12-31 are validation_error, not 500; the last one is read', async (ctx) => {
  // The buckets a report reads reach weeks past `to`: near 9999-12-31 they reached a day of the year 10000.
  await readsAnswer(ctx, ['/campaigns/report?to=9999-12-31', '/campaigns/report?from=9999-12-31', '/campaigns/report?to=9999-12-30&level=ad',
    '/campaigns/report?from=9999-01-01&to=9999-01-31&level=adset', '/creatives/report?to=9999-12-31', '/creatives/report?to=9999-12-30&weeks=8',
    '/creatives/report?from=9999-12-01&to=9999-12-02'],
  ['/campaigns/report?from=9998-12-01&to=9998-12-31&level=ad', '/campaigns/report?from=9998-12-31', '/creatives/report?to=9998-12-31&weeks=8']);
});

test.run();
