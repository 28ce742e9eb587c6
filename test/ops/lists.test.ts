// `ops ... list --org ID`: a list for an organisation that does not exist is an error, not an empty list.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from '../reports/cli.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: the list commands refuse an unknown organisation with exit 2');

test.before(async (ctx) => { ctx.db = await freshDatabase('ops_lists'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const LISTS = [['key', 'list'], ['source', 'list'], ['target', 'list'], ['flow', 'list'], ['jobs', 'list'], ['creatives', 'list']];

test('an unknown organisation is exit 2 with the reason on stderr and nothing on stdout', async (ctx) => {
  for (const list of LISTS) {
    const res = await runOps(ctx.db.url, [...list, '--org', '00000000-0000-4000-8000-000000000000', '--json']);
    assert.is(res.code, 2, `${list.join(' ')}: ${res.stdout}`);
    assert.is(res.stdout, '', list.join(' '));
    assert.match(res.stderr, /not_found: unknown organisation/, list.join(' '));
  }
});

test('an organisation with nothing in it lists an empty array', async (ctx) => {
  const created = await runOps(ctx.db.url, ['org', 'create', '--name', 'Empty', '--json']);
  assert.is(created.code, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  for (const list of LISTS) {
    const res = await runOps(ctx.db.url, [...list, '--org', id, '--json']);
    assert.is(res.code, 0, `${list.join(' ')}: ${res.stderr}`);
    assert.equal(JSON.parse(res.stdout), [], list.join(' '));
  }
});

test('flow list without --json names each flow\'s trigger: two flows of one source and target are told apart', async (ctx) => {
  const idOf = async (args: string[]) => JSON.parse((await runOps(ctx.db.url, [...args, '--json'])).stdout).id as string;
  const org = await idOf(['org', 'create', '--name', 'Flows']);
  const source = await idOf(['source', 'create', '--org', org, '--kind', 'shop', '--name', 'Shop']);
  const target = await idOf(['target', 'create', '--org', org, '--dataset', '4242', '--token', 'EAAB-token']);
  await idOf(['flow', 'create', '--source', source, '--target', target, '--event-name', 'Purchase', '--status', 'paid']);
  await idOf(['flow', 'create', '--source', source, '--target', target, '--event-name', 'Purchase', '--status', 'paid-in-shop']);
  const res = await runOps(ctx.db.url, ['flow', 'list', '--org', org]);
  assert.is(res.code, 0, res.stderr);
  assert.equal(res.stdout.trim().split('\n').map((line) => line.replace(/^.*  Purchase/, 'Purchase')).sort(), ['Purchase on status paid', 'Purchase on status paid-in-shop']);
});

test.run();
