import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';

const test = suite<{ server: TestServer; org: TestOrg }>('Contacts: create, read, update');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

test('POST /contacts stores the phone in E.164 and the e-mail lower-cased, and the list sees it at once', async ({ server, org }) => {
  const res = await server.request('POST', '/contacts', { key: org.key, body: { name: 'Anna Nowak', phone: '601 234 567', email: '  Anna@Example.COM ', tags: ['vip', ' vip '] } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.body.phone, '+48601234567');
  assert.is(res.body.email, 'anna@example.com');
  assert.equal(res.body.tags, ['vip']);
  assert.is(res.body.stage, 'new');
  assert.is(res.body.cycle, 1);
  assert.is(res.body.first_source, 'api');
  assert.is(res.body.first_ad, null);
  assert.is(res.body.owner_id, null);
  assert.is(res.body.sms_optout, false);
  const list = await server.request('GET', '/contacts', { key: org.key });
  assert.is(list.status, 200);
  assert.ok(list.body.data.some((c: { id: string }) => c.id === res.body.id));
  const one = await server.request('GET', `/contacts/${res.body.id}`, { key: org.key });
  assert.equal(one.body, res.body);
});

test.run();
