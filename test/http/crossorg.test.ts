import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertInvisibleToOtherOrg, type OrgServer } from '../support/crossOrg.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { startApp, type ExtraApp } from './support/app.ts';
import { createItemsTable, newProbe, testRoutes } from './support/routes.ts';

interface Ctx { server: TestServer; app: ExtraApp; owner: TestOrg; via: OrgServer }
const test = suite<Ctx>('Other organisations see nothing (the reusable helper)');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await createItemsTable(ctx.server.services.pool);
  ctx.app = await startApp(ctx.server.services, { extraRoutes: testRoutes(newProbe()) });
  ctx.via = { newOrganization: ctx.server.newOrganization, settle: ctx.server.settle, request: ctx.app.request };
  ctx.owner = await ctx.server.newOrganization();
  await ctx.server.services.pool.query(
    `INSERT INTO test_items (organization_id, id, name, updated_at) VALUES ($1, 'owned-1', 'Secret Name', now())`, [ctx.owner.organizationId]);
});
test.after(async (ctx) => { await ctx.app.stop(); await ctx.server.stop(); });

test('a record by id is 404 not_found for another organisation', async (ctx) => {
  assert.is((await ctx.app.request('GET', '/test/items/owned-1', { key: ctx.owner.key })).status, 200);
  await assertInvisibleToOtherOrg(ctx.via, { method: 'GET', path: '/test/items/owned-1', secrets: ['Secret Name'] });
});

test('a list is empty for another organisation', async (ctx) => {
  assert.is((await ctx.app.request('GET', '/test/items', { key: ctx.owner.key })).body.data.length, 1);
  await assertInvisibleToOtherOrg(ctx.via, { method: 'GET', path: '/test/items?name=Secret%20Name', secrets: ['owned-1'] });
});

test('a write is 404 not_found and changes nothing', async (ctx) => {
  await assertInvisibleToOtherOrg(ctx.via, {
    method: 'POST', path: '/test/items/owned-1/rename', body: { name: 'Taken' }, scopes: ['contacts:write'],
    unchanged: { key: ctx.owner.key, path: '/test/items/owned-1' },
  });
  assert.is((await ctx.app.request('GET', '/test/items/owned-1', { key: ctx.owner.key })).body.name, 'Secret Name');
});

test('the helper fails when another organisation can see the data', async (ctx) => {
  // A route that ignores the organisation would leak: the helper must catch it.
  const leaky: OrgServer = {
    ...ctx.via,
    request: (method, path, options) => ctx.app.request(method, path, { ...options, key: ctx.owner.key }),
  };
  let failed = 0;
  for (const check of [
    { method: 'GET' as const, path: '/test/items/owned-1' },
    { method: 'GET' as const, path: '/test/items' },
    { method: 'GET' as const, path: '/me', expect: () => {}, secrets: [ctx.owner.organizationId] },
  ]) {
    try { await assertInvisibleToOtherOrg(leaky, check); } catch { failed++; }
  }
  assert.is(failed, 3);
});

test('GET /me of another key never shows this organisation', async (ctx) => {
  await assertInvisibleToOtherOrg(ctx.server, {
    method: 'GET', path: '/me', secrets: [ctx.owner.organizationId, ctx.owner.keyId],
    expect: (reply) => { assert.is(reply.status, 200); },
  });
});

test.run();
