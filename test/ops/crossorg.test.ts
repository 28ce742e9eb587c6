// The operator CLI's commands that name an organisation touch only that one: a flow, a job or a merge that
// would join two organisations is refused (exit code 2, nothing written), and one lead file makes each its own lead.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';
import { runOps } from '../reports/cli.ts';

interface Ctx { server: TestServer; a: TestOrg; b: TestOrg }
const test = suite<Ctx>('Operator CLI: another organisation\'s ids are unknown to a command given --org');
test.before(async (ctx) => {
  ctx.server = await startTestServer({ PLATFORM_SENDING: 'off' });
  ctx.a = await ctx.server.newOrganization();
  ctx.b = await ctx.server.newOrganization();
});
test.after(async (ctx) => { await ctx.server.stop(); });

async function ops(server: TestServer, args: string[]): Promise<any> {
  const run = await runOps(server.db.url, [...args, '--json']);
  assert.is(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function refused(server: TestServer, args: string[], message: RegExp): Promise<void> {
  const run = await runOps(server.db.url, [...args, '--json']);
  assert.equal([run.code, run.stdout], [2, ''], args.join(' '));
  assert.match(run.stderr, message, args.join(' '));
}

test('flow create refuses a source and a target of two organisations', async ({ server, a, b }) => {
  const sourceA = (await ops(server, ['source', 'create', '--org', a.organizationId, '--kind', 'shop', '--name', 'Shop A'])).id;
  const targetA = (await ops(server, ['target', 'create', '--org', a.organizationId, '--dataset', '123', '--token', 'EAAB-token-a'])).id;
  const sourceB = (await ops(server, ['source', 'create', '--org', b.organizationId, '--kind', 'shop', '--name', 'Shop B'])).id;
  const targetB = (await ops(server, ['target', 'create', '--org', b.organizationId, '--dataset', '123', '--token', 'EAAB-token-b'])).id;
  await refused(server, ['flow', 'create', '--source', sourceA, '--target', targetB, '--event-name', 'Purchase', '--status', 'paid'], /^not_found: unknown target in the source's organisation/);
  await refused(server, ['flow', 'create', '--source', sourceB, '--target', targetA, '--event-name', 'Purchase', '--status', 'paid'], /^not_found: unknown target in the source's organisation/);
  assert.equal(await ops(server, ['flow', 'list', '--org', a.organizationId]), []);
  assert.equal(await ops(server, ['flow', 'list', '--org', b.organizationId]), []);
  assert.equal((await ops(server, ['source', 'list', '--org', b.organizationId])).map((s: { id: string }) => s.id), [sourceB]);
  assert.equal((await ops(server, ['target', 'list', '--org', b.organizationId])).map((t: { id: string }) => t.id), [targetB]);
});

test('jobs enqueue with another organisation\'s source and jobs cancel of its number are refused', async ({ server, a, b }) => {
  const sheet = (await ops(server, ['source', 'create', '--org', a.organizationId, '--kind', 'spreadsheet', '--name', 'Sheet A', '--csv-url', 'https://example.com/a.csv'])).id;
  await refused(server, ['jobs', 'enqueue', 'sheets_sync', '--org', b.organizationId, '--source', sheet], /^not_found: unknown source in this organisation/);
  const queued = await ops(server, ['jobs', 'enqueue', 'sheets_sync', '--org', a.organizationId, '--source', sheet]);
  await refused(server, ['jobs', 'cancel', String(queued.number), '--org', b.organizationId], /^not_found: no such job/);
  assert.equal(await ops(server, ['jobs', 'list', '--org', b.organizationId]), []);
  const mine = await ops(server, ['jobs', 'list', '--org', a.organizationId]);
  assert.ok(mine.some((j: { number: number; status: string }) => j.number === queued.number && j.status !== 'cancelled'), JSON.stringify(mine));
});

test('contacts merge across organisations is refused either way; both cards stay as they were', async ({ server, a, b }) => {
  const mine = await server.request('POST', '/contacts', { key: a.key, body: { email: 'same@example.com' } });
  const theirs = await server.request('POST', '/contacts', { key: b.key, body: { email: 'same@example.com' } });
  assert.equal([mine.status, theirs.status], [201, 201]);
  await refused(server, ['contacts', 'merge', mine.body.id, '--into', theirs.body.id], /^not_found: /);
  await refused(server, ['contacts', 'merge', theirs.body.id, '--into', mine.body.id], /^not_found: /);
  assert.equal((await server.request('GET', `/contacts/${mine.body.id}`, { key: a.key })).body, mine.body);
  assert.equal((await server.request('GET', `/contacts/${theirs.body.id}`, { key: b.key })).body, theirs.body);
});

test('one lead file imported into two organisations makes a lead, a person and a form source in each', async ({ server, a, b }) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crossorg-'));
  const file = path.join(dir, 'leads.json');
  await fs.writeFile(file, JSON.stringify([{
    id: '120200300400', created_time: '2025-03-01T10:00:00+0000', form_id: '555', form_name: 'Spring', campaign_id: '4001', campaign_name: 'Spring',
    adset_id: '5001', adset_name: 'Set', ad_id: '6001', ad_name: 'Ad', field_data: [{ name: 'email', values: ['lead@example.com'] }],
  }]));
  for (const org of [a, b]) assert.equal(await ops(server, ['leads', 'import', '--org', org.organizationId, '--file', file]), { read: 1, created: 1, completed: 0, known: 0 });
  await fs.rm(dir, { recursive: true });
  await server.settle();
  const [leadsA, leadsB] = await Promise.all([a, b].map((org) => server.request('GET', '/leads', { key: org.key })));
  assert.equal([leadsA.body.data.length, leadsB.body.data.length], [1, 1]);
  assert.is.not(leadsA.body.data[0].id, leadsB.body.data[0].id);
  assert.is.not(leadsA.body.data[0].contact_id, leadsB.body.data[0].contact_id);
  assert.is.not(leadsA.body.data[0].form_id, leadsB.body.data[0].form_id);
});

test.run();
