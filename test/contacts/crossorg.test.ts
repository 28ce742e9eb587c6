import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertInvisibleToOtherOrg } from '../support/crossOrg.ts';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { importLead } from '../leads/support.ts';

interface Ctx { server: TestServer; owner: TestOrg; contactId: string; leadId: string }
const test = suite<Ctx>('Contacts and leads: another organisation sees nothing (every endpoint)');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.owner = await ctx.server.newOrganization();
  const lead = await importLead(ctx.server, ctx.owner, { id: '990001', name: 'Secret Person', email: 'secret@example.com', phone: '600999888', ad: 'ad-x', adset: 'as-x', campaign: 'camp-x', budget: 'secret budget' });
  await ctx.server.request('POST', `/contacts/${lead.contactId}/tags`, { key: ctx.owner.key, body: { add: ['secret-tag'] } });
  ctx.contactId = lead.contactId!;
  ctx.leadId = lead.leadId;
});
test.after(async (ctx) => { await ctx.server.stop(); });

const SECRETS = ['Secret Person', 'secret@example.com', '+48600999888', 'secret budget'];

test('contact reads: GET by id is 404, and every list filter is empty', async ({ server, contactId }) => {
  await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/contacts/${contactId}`, secrets: SECRETS });
  for (const query of ['', '?tag=secret-tag', '?email=secret@example.com', '?phone=600999888', '?campaign=camp-x', '?adset=as-x', '?ad=ad-x', '?stage=new']) {
    await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/contacts${query}`, secrets: [...SECRETS, contactId] });
  }
});

test('contact writes are 404 and change nothing: PATCH, stage, notes, tags, sms-optout', async ({ server, owner, contactId }) => {
  const unchanged = { key: owner.key, path: `/contacts/${contactId}` };
  for (const [method, path, body] of [
    ['PATCH', `/contacts/${contactId}`, { name: 'Taken over' }],
    ['POST', `/contacts/${contactId}/stage`, { stage: 'sold', value: 5 }],
    ['POST', `/contacts/${contactId}/notes`, { text: 'hello' }],
    ['POST', `/contacts/${contactId}/tags`, { add: ['x'], remove: ['secret-tag'] }],
    ['POST', `/contacts/${contactId}/sms-optout`, { sms_optout: true }],
  ] as const) {
    await assertInvisibleToOtherOrg(server, { method, path, body, secrets: SECRETS, unchanged });
  }
  // The other organisation may create a person with the same phone and e-mail: uniqueness is per organisation.
  const stranger = await server.newOrganization();
  const same = await server.request('POST', '/contacts', { key: stranger.key, body: { phone: '600999888', email: 'secret@example.com' } });
  assert.is(same.status, 201);
});

test('lead reads: GET by id is 404, and every list filter is empty', async ({ server, contactId, leadId }) => {
  await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/leads/${leadId}`, secrets: SECRETS });
  const owned = await server.request('GET', `/leads?contact=${contactId}`, { key: (await server.newOrganization()).key });
  assert.equal(owned.body.data, []);
  for (const query of ['', `?contact=${contactId}`, '?campaign=camp-x', '?adset=as-x', '?ad=ad-x', '?stage=new', '?from=2000-01-01']) {
    await assertInvisibleToOtherOrg(server, { method: 'GET', path: `/leads${query}`, secrets: [...SECRETS, leadId] });
  }
});

test.run();
