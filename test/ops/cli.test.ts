import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CliError, parseCommandLine } from '../../ops/context.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from '../reports/cli.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: --json always means one JSON document; a missing value or an unknown option is exit 2');

test.before(async (ctx) => { ctx.db = await freshDatabase('ops_cli'); });
test.after(async (ctx) => { await ctx.db.drop(); });

test('an option followed by another option has no value; --json is never taken as one', () => {
  assert.throws(() => parseCommandLine(['org', 'create', '--name', '--json']), (e: unknown) => e instanceof CliError && /--name needs a value/.test(e.message));
  const parsed = parseCommandLine(['org', 'create', '--name', 'Acme', '--json']);
  assert.equal(parsed.options, { name: 'Acme', json: 'true' });
  assert.ok(parsed.json);
  assert.equal(parseCommandLine(['org', 'create', '--name=--odd', '--json']).options.name, '--odd');
});

test('an option may be spelled as its HTTP parameter, with underscores', () => {
  const parsed = parseCommandLine(['reports', 'creative', '--ad_account', 'act_1', '--as_of=2026-01-01T00:00:00Z']);
  assert.equal(parsed.options, { 'ad-account': 'act_1', 'as-of': '2026-01-01T00:00:00Z' });
});

test('an unknown option is exit 2 on stderr with nothing on stdout and nothing created; the same command without it works', async (ctx) => {
  const count = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'OrganizationCreated'")).rows[0].count);
  const before = await count();
  for (const args of [['org', 'create', '--name', 'Typo', '--bogus', '--json'], ['org', 'create', '--name', 'Typo', '--timezon', 'UTC', '--json'], ['org', 'create', '--name', '--json']]) {
    const res = await runOps(ctx.db.url, args);
    assert.is(res.code, 2, args.join(' '));
    assert.is(res.stdout, '', args.join(' '));
    // `--bogus --json` reads as --bogus without its value; `--timezon UTC` as an option the command lacks.
    assert.match(res.stderr, /--bogus needs a value|unknown option --timezon|--name needs a value/, args.join(' '));
  }
  assert.is(await count(), before);
  const ok = await runOps(ctx.db.url, ['org', 'create', '--name', 'Acme', '--timezone', 'UTC', '--json']);
  assert.is(ok.code, 0, ok.stderr);
  assert.type(JSON.parse(ok.stdout).id, 'string');
});

test('key create and key list show the prefix the key begins with, and each scope once', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Keys', '--json'])).stdout).id;
  const created = await runOps(ctx.db.url, ['key', 'create', '--org', org, '--name', 'ci', '--scopes', 'jobs:read,webhooks:write,jobs:read', '--json']);
  assert.is(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  assert.ok(key.key.startsWith(`${key.prefix}_`), `${key.prefix} begins ${key.key}`);
  assert.equal(key.scopes, ['jobs:read', 'webhooks:write']);
  const listed = JSON.parse((await runOps(ctx.db.url, ['key', 'list', '--org', org, '--json'])).stdout);
  assert.equal(listed.map((k: { prefix: string; scopes: string[] }) => [k.prefix, k.scopes]), [[key.prefix, ['jobs:read', 'webhooks:write']]]);
});

test.run();
