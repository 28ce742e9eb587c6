// The reports' catalog (ads, creatives, group tags, accounts) kept between reports: read again once the reporting_ads
// projector moves, so a report read after a write shows it; never shared across organisations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tagCreativeGroup } from '../../commands/creativegroup/handlers.ts';
import { cachedCatalog, readCatalogRows, type CatalogReader } from '../../queries/reports/catalogCache.ts';
import { rebuildProjector } from '../../src/projections/rebuild.ts';
import { projectors } from '../../src/projections/all.ts';
import type { TestOrg, TestServer } from '../support/server.ts';
import { Given } from './events.ts';
import { settleReports, startReportServer } from './support.ts';
import { eventually } from '../support/eventually.ts';
import { givenCreativeScenario, TO } from './creative-scenario.ts';

interface Ctx { server: TestServer; org: TestOrg; given: Given }
const test = suite<Ctx>('Reports: the catalog kept between reports');
test.before(async (ctx) => {
  ctx.server = await startReportServer();
  ctx.org = await ctx.server.newOrganization({ timezone: 'Europe/Warsaw', currency: 'PLN', scopes: ['creatives:read', 'campaigns:read', 'contacts:write'] });
  ctx.given = new Given(ctx.server.services.store, ctx.org.organizationId);
  await givenCreativeScenario(ctx.given, ctx.server.services.store);
  await settleReports(ctx.server, ctx.given.last);
});
test.after(async (ctx) => { await ctx.server.stop(); });

const tagsOf = async (ctx: Ctx, key = ctx.org.key) => {
  const res = await ctx.server.request('GET', `/creatives/report?to=${TO}`, { key });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return Object.fromEntries(res.body.rows.map((r: { group_id: string; tags: string[] }) => [r.group_id, r.tags]));
};

async function tag(ctx: Ctx, value: string): Promise<void> {
  const { position } = await tagCreativeGroup(ctx.server.services.store, {
    organizationId: ctx.org.organizationId, groupId: 'image:IMG1', changes: [{ dimension: 'offer', value }],
  }, new Date());
  await settleReports(ctx.server, position!);
}

test('a tag set after a report shows in the next report over HTTP, each time', async (ctx) => {
  assert.equal((await tagsOf(ctx))['image:IMG1'], ['hook:pain']);
  await tag(ctx, 'free-trial');
  assert.equal((await tagsOf(ctx))['image:IMG1'], ['hook:pain', 'offer:free-trial']);
  await tag(ctx, 'discount');
  assert.equal((await tagsOf(ctx))['image:IMG1'], ['hook:pain', 'offer:discount']);
});

test('rows are read once while the projector stands still, again after it moves, and per organisation', async (ctx) => {
  const reads: string[] = [];
  const counting: CatalogReader = (db, organizationId) => { reads.push(organizationId); return readCatalogRows(db, organizationId); };
  const catalog = cachedCatalog(counting);
  const { pool } = ctx.server.services;
  const other = await ctx.server.newOrganization({ scopes: ['creatives:read'] });
  const first = await catalog(pool, ctx.org.organizationId);
  assert.is(await catalog(pool, ctx.org.organizationId), first, 'the same rows while nothing moved');
  assert.equal((await catalog(pool, other.organizationId)).creativeAds, [], 'another organisation reads its own, none');
  assert.equal(reads, [ctx.org.organizationId, other.organizationId]);

  // Events the projector passes over move its checkpoint, not what it applied: the rows are kept.
  const position = async () => (await pool.query("SELECT commit_position FROM projection_checkpoints WHERE name = 'reporting_ads'")).rows[0].commit_position;
  const before = await position();
  const contact = await ctx.server.request('POST', '/contacts', { key: ctx.org.key, body: { email: 'passed-over@x.pl' } });
  assert.is(contact.status, 201, JSON.stringify(contact.body));
  await settleReports(ctx.server);
  // A passed-over checkpoint is written a little later (every 200 ms at most).
  await eventually('the checkpoint moving past the contact', async () => (await position()) !== before, 10_000);
  assert.is(await catalog(pool, ctx.org.organizationId), first, 'kept over events the projector passes over');
  assert.is(reads.length, 2);

  await tag(ctx, 'bundle');
  const after = await catalog(pool, ctx.org.organizationId);
  assert.is.not(after, first);
  assert.equal(after.tags.get('image:IMG1'), ['hook:pain', 'offer:bundle']);
  assert.is(reads.length, 3);

  // A rebuild swaps the tables in and writes the checkpoint: read again, equal.
  await rebuildProjector(pool, ctx.server.services.store, projectors.find((p) => p.name === 'reporting_ads')!);
  const rebuilt = await catalog(pool, ctx.org.organizationId);
  assert.is(reads.length, 4);
  assert.equal(rebuilt, after);
});

test('another organisation\'s key sees none of the kept rows', async (ctx) => {
  await tagsOf(ctx);
  const other = await ctx.server.newOrganization({ scopes: ['creatives:read', 'campaigns:read'] });
  assert.equal(await tagsOf(ctx, other.key), {});
  const campaigns = await ctx.server.request('GET', `/campaigns/report?to=${TO}&level=ad`, { key: other.key });
  assert.equal([campaigns.body.rows, campaigns.body.syncs], [[], []]);
});

test.run();
