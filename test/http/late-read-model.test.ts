// A create whose read model does not catch up within the read-your-writes bound: an API-only process
// (WORKERS=off) with no other process running the projectors. POST /contacts and POST /webhooks waited their 5 s
// and then answered 404 not_found for what they had just created; they now answer 201 with the new resource as its
// events give it, the same body the read model shows once it has caught up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startApiOnly, type ApiOnly } from './support/apiOnly.ts';
import { createOrganization } from '../../commands/organization/handlers.ts';
import { createApiKey } from '../../commands/apikey/handlers.ts';
import { ALL_SCOPES } from '../../commands/shared/scopes.ts';
import { drainProjections } from '../../src/projections/drain.ts';
import { projectors } from '../../src/projections/all.ts';

interface Ctx { db: TestDatabase; api: ApiOnly; key: string }
const test = suite<Ctx>('Read model behind: a create answers 201 with what it created, never 404');

/** Run the named projectors up to the store's head once, as a worker process would. */
async function project(ctx: Ctx, names: string[]): Promise<void> {
  const { pool, store, waiter } = ctx.api.services;
  await drainProjections(pool, store, projectors.filter((p) => names.includes(p.name)), waiter);
}

test.before(async (ctx) => {
  ctx.db = await freshDatabase('late_read_model');
  ctx.api = await startApiOnly(ctx.db.url, [], { WEBHOOK_ALLOW_PRIVATE: '1' });
  const { store } = ctx.api.services;
  const org = await createOrganization(store, { name: 'Late org' }, new Date());
  ctx.key = (await createApiKey(store, { organizationId: org.id, name: 'late key', scopes: [...ALL_SCOPES], expiresAt: null }, new Date())).key;
  // Keys are read from their read model: only that one is brought up to date.
  await project(ctx, ['access']);
});
test.after(async (ctx) => {
  await ctx.api.stop();
  await ctx.db.drop();
});

test('POST /contacts: 201 with the new contact; GET shows the same once the projector ran', async (ctx) => {
  const created = await ctx.api.request('POST', '/contacts', { key: ctx.key, body: { name: '  Late  ', email: 'Late@X.pl', tags: ['vip', ' b '] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const contact = created.body;
  assert.is(contact.name, 'Late');
  assert.is(contact.email, 'late@x.pl');
  assert.equal(contact.tags, ['vip', 'b']);
  assert.is(contact.stage, 'new');
  assert.is(contact.first_source, 'api');
  // Not in the read model yet: the answer came from the write side.
  assert.is((await ctx.api.request('GET', `/contacts/${contact.id}`, { key: ctx.key })).status, 404);

  await project(ctx, ['contacts']);
  const read = await ctx.api.request('GET', `/contacts/${contact.id}`, { key: ctx.key });
  assert.is(read.status, 200);
  assert.equal(Object.keys(contact), Object.keys(read.body), 'the same fields in the same order');
  assert.equal(contact, read.body);
});

test('POST /webhooks: 201 with the new webhook and its secret; GET shows the same once the projectors ran', async (ctx) => {
  const created = await ctx.api.request('POST', '/webhooks', { key: ctx.key, body: { url: 'https://example.com/hook', events: ['lead.created', 'contact.created'] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const { secret, ...webhook } = created.body;
  assert.type(secret, 'string');
  assert.is(webhook.active, true);
  assert.is((await ctx.api.request('GET', `/webhooks/${webhook.id}`, { key: ctx.key })).status, 404);

  await project(ctx, ['webhooks', 'webhook_outbox']);
  const read = await ctx.api.request('GET', `/webhooks/${webhook.id}`, { key: ctx.key });
  assert.is(read.status, 200);
  assert.equal(Object.keys(webhook), Object.keys(read.body), 'the same fields in the same order');
  assert.equal(webhook, read.body);
});

test.run();
