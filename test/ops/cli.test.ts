import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
  // An option twice is refused (under either spelling); a flag twice is the flag; --help still shows the usage.
  for (const argv of [['contacts', 'merge', 'A', '--into', 'B', '--into', 'C'], ['reports', 'creative', '--ad-account', 'act_1', '--ad_account=act_2']]) {
    assert.throws(() => parseCommandLine(argv), (e: unknown) => e instanceof CliError && /^--(into|ad-account) is given twice/.test(e.message), argv.join(' '));
  }
  assert.equal(parseCommandLine(['key', 'list', '--org', 'O', '--json', '--json']).options, { org: 'O', json: 'true' });
  assert.is(parseCommandLine(['contacts', 'merge', 'A', '--into', 'B', '--into', 'C', '--help']).options.help, 'true');
});

const root = path.join(import.meta.dirname, '..', '..');

/** `npm run ops -- ...` as DESIGN.md writes it (no -s), with none of the npm settings of whatever runs the tests. */
function npmRunOps(databaseUrl: string, args: string[], cwd = root): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // INIT_CWD too: npm sets it to the directory it is run in, unless it is set already (as by the npm running the tests).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_|^INIT_CWD$/i.test(name)));
  const child = spawn('npm', ['--prefix', root, 'run', 'ops', '--', ...args], {
    cwd, env: { ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('`npm run ops -- <command> --json` prints exactly one JSON document on stdout, and nothing on an error', async (ctx) => {
  const created = await npmRunOps(ctx.db.url, ['org', 'create', '--name', 'Through npm', '--json']);
  assert.is(created.code, 0, created.stderr);
  assert.equal(Object.keys(JSON.parse(created.stdout)), ['id'], created.stdout);
  const listed = await npmRunOps(ctx.db.url, ['key', 'list', '--org', JSON.parse(created.stdout).id, '--json']);
  assert.equal(JSON.parse(listed.stdout), [], listed.stdout);
  const refused = await npmRunOps(ctx.db.url, ['key', 'list', '--org', 'no-such-org', '--json']);
  assert.is(refused.code, 2, refused.stderr);
  assert.is(refused.stdout, '');
  assert.match(refused.stderr, /^not_found: /);
});

test('key revoke given the key itself instead of its id refuses without printing the key', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Pasted key', '--json'])).stdout).id;
  const { key } = JSON.parse((await runOps(ctx.db.url, ['key', 'create', '--org', org, '--name', 'leaked', '--scopes', 'contacts:read', '--json'])).stdout);
  const res = await runOps(ctx.db.url, ['key', 'revoke', key]);
  assert.is(res.code, 2, res.stderr);
  assert.not.ok(res.stderr.includes(key.slice(4)), res.stderr);
  assert.not.ok(res.stdout.includes(key.slice(4)), res.stdout);
  assert.match(res.stderr, /takes the key's id, not the key itself/);
});

test('a secret pasted where an id or a word belongs is never echoed: the error names the option, the value is cut out', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Pasted token', '--json'])).stdout).id as string;
  const token = 'EAAGm0PX4ZCpsBAKZBq7nLZCZAdM9xQZDZD1234abcd';
  const appSecret = '3f1c9a8e5b7d2046c1e9f0a3b5d7e9c1';
  const key = `csk_abcdefghij_${'Ab1-'.repeat(10)}xyz`;
  const cases: [string[], RegExp][] = [
    [['target', 'create', '--org', org, '--dataset', token, '--token', token], /^--dataset must be the platform's numeric dataset \(pixel\) id, got \[43 characters, not shown/],
    [['target', 'create', '--org', org, '--dataset', '123', '--token', `${token} `, '--mode', token], /^--mode must be test or live/],
    [['target', 'create', '--org', org, '--dataset', '123', token], /^unexpected argument \[43 characters, not shown/],
    [['target', 'create', '--org', token, '--dataset', '123', '--token', token], /^not_found: .*organization_id/],
    [['page', 'connect', '--org', org, '--page', appSecret, '--token', token], /^--page must be the platform's numeric page id, got \[32 characters/],
    [['adaccount', 'connect', '--org', org, '--account', `act_${appSecret}`, '--token', appSecret], /^--account must be the platform's ad account id/],
    [['jobs', 'enqueue', 'lead_import', '--org', org, '--page', key], /^--page must be/],
    [['jobs', 'cancel', token, '--org', org], /^the job number must be a positive integer/],
    [['target', token], /^unknown command: target \[43 characters/],
  ];
  for (const [args, expected] of cases) {
    const res = await runOps(ctx.db.url, args);
    assert.is(res.code, 2, `${args.join(' ')}: ${res.stdout}`);
    for (const secret of [token, appSecret, key, key.slice(15)]) assert.not.ok(res.stderr.includes(secret) || res.stdout.includes(secret), res.stderr);
    assert.match(res.stderr, expected);
  }
  // An id is still shown: it helps, and it is no secret.
  const unknown = await runOps(ctx.db.url, ['target', 'create', '--org', org, '--dataset', 'ds-3001', '--token', token]);
  assert.match(unknown.stderr, /got ds-3001$/m);
});

test('leads import --file: a relative path is read from the directory the operator runs npm in, not the project folder npm runs the command in', async (ctx) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ops-cwd-'));
  try {
    await fs.writeFile(path.join(dir, 'leads.json'), JSON.stringify([{
      id: '770000001', created_time: '2026-01-05T10:00:00+0000', form_id: '7001', form_name: 'Here',
      field_data: [{ name: 'email', values: ['here@example.com'] }],
    }]));
    const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Caller dir', '--json'])).stdout).id;
    const imported = await npmRunOps(ctx.db.url, ['leads', 'import', '--org', org, '--file', 'leads.json', '--json'], dir);
    assert.is(imported.code, 0, imported.stderr);
    assert.equal(JSON.parse(imported.stdout), { read: 1, created: 1, completed: 0, known: 0 });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('an --org that names no organisation is the same not_found line in reports, leads import and jobs cancel as in every other command', async (ctx) => {
  const file = path.join(os.tmpdir(), `ops-no-org-${process.pid}.json`);
  await fs.writeFile(file, '[]');
  try {
    for (const args of [['reports', 'campaign'], ['reports', 'creative'], ['leads', 'import', '--file', file], ['jobs', 'cancel', '1']]) {
      const res = await runOps(ctx.db.url, [...args, '--org', 'no-such-org', '--json']);
      assert.is(res.code, 2, args.join(' '));
      assert.is(res.stdout, '', args.join(' '));
      assert.is(res.stderr, 'not_found: unknown organisation {"organization_id":"no-such-org"}\n', args.join(' '));
    }
  } finally {
    await fs.rm(file, { force: true });
  }
});

test('an option may be spelled as its HTTP parameter, with underscores', () => {
  const parsed = parseCommandLine(['reports', 'creative', '--ad_account', 'act_1', '--as_of=2026-01-01T00:00:00Z']);
  assert.equal(parsed.options, { 'ad-account': 'act_1', 'as-of': '2026-01-01T00:00:00Z' });
});

test('an unknown option is exit 2 on stderr with nothing on stdout and nothing created; the same command without it works', async (ctx) => {
  const count = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'OrganizationCreated'")).rows[0].count);
  const before = await count();
  const given = [
    ['org', 'create', '--name', 'Typo', '--bogus', '--json'], ['org', 'create', '--name', 'Typo', '--timezon', 'UTC', '--json'], ['org', 'create', '--name', '--json'],
    ['org', 'create', '--name', 'Typo', '--timezone', 'UTC', '--timezone=Europe/Warsaw', '--json'], ['org', 'create', '--name', 'Typo', '--name', 'Other', '--json'],
  ];
  for (const args of given) {
    const res = await runOps(ctx.db.url, args);
    assert.is(res.code, 2, args.join(' '));
    assert.is(res.stdout, '', args.join(' '));
    // `--bogus --json` reads as --bogus without its value; `--timezon UTC` as an option the command lacks; an option
    // given twice as neither value (the last one used to win without a word).
    assert.match(res.stderr, /--bogus needs a value|unknown option --timezon|--name needs a value|--(timezone|name) is given twice/, args.join(' '));
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

test('--help shows usage on stdout with exit 0 and does nothing, however much of the command is given', async (ctx) => {
  const orgs = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'OrganizationCreated'")).rows[0].count);
  const before = await orgs();
  const all = await runOps(ctx.db.url, ['--help']);
  assert.is(all.code, 0, all.stderr);
  assert.match(all.stdout, /^usage: npm run ops -- <command>/);
  assert.match(all.stdout, /\n {2}key revoke ID\n/);
  const group = await runOps(ctx.db.url, ['key', '--help']);
  assert.is(group.code, 0, group.stderr);
  assert.match(group.stdout, /key create --org ID/);
  assert.not.match(group.stdout, /org create/);
  // A complete command with --help is not run: no organisation is created.
  const create = await runOps(ctx.db.url, ['org', 'create', '--name', 'Helped', '--help']);
  assert.is(create.code, 0, create.stderr);
  assert.match(create.stdout, /org create --name N/);
  assert.is(await orgs(), before);
  const json = await runOps(ctx.db.url, ['key', 'revoke', 'some-key', '--help', '--json']);
  assert.is(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout), { usage: ['key revoke ID'] });
  // An option left without its value does not hide the help asked for.
  const valueless = await runOps(ctx.db.url, ['org', 'create', '--name', '--help']);
  assert.is(valueless.code, 0, valueless.stderr);
  assert.match(valueless.stdout, /org create --name N/);
  assert.is(await orgs(), before);
  // An unknown command stays bad usage.
  const unknown = await runOps(ctx.db.url, ['orgs', '--help']);
  assert.is(unknown.code, 2);
  assert.is(unknown.stdout, '');
});

test('a command group named alone lacks its command (not an unknown command); a known group shows only its own usage', async (ctx) => {
  const alone = await runOps(ctx.db.url, ['key']);
  assert.is(alone.code, 2, alone.stderr);
  assert.is(alone.stdout, '');
  assert.match(alone.stderr, /^key needs one of its commands: create, list, revoke\nusage: npm run ops -- <command> \[--json\] \[--verbose\] \[--help\]\n {2}key create --org ID/);
  assert.not.match(alone.stderr, /unknown command|org create/);
  const wrong = await runOps(ctx.db.url, ['key', 'frob', '--json']);
  assert.is(wrong.code, 2, wrong.stderr);
  assert.is(wrong.stdout, '');
  assert.match(wrong.stderr, /^unknown command: key frob\nusage: .*\n {2}key create --org ID/);
  assert.not.match(wrong.stderr, /org create/);
  // No group at all: the whole list, as before.
  const none = await runOps(ctx.db.url, ['keys']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /^unknown command: keys\n[^]*\n {2}org create[^]*\n {2}creatives list --org ID\n$/);
});

test('a database that cannot be reached, or a bad setting, is one line on stderr and exit code 2, not a stack trace', async (ctx) => {
  for (const [url, env, expected] of [
    ['postgres://nobody:none@127.0.0.1:1/none', {}, /^cannot start: cannot reach the database at 127\.0\.0\.1:1\/none: connect ECONNREFUSED 127\.0\.0\.1:1\n$/],
    [ctx.db.url, { DELIVERY_RETRY_SCHEDULE: 'soon' }, /^cannot start: DELIVERY_RETRY_SCHEDULE="soon" is not valid/],
  ] as const) {
    const res = await runOps(url, ['org', 'create', '--name', 'Nowhere', '--json'], env);
    assert.is(res.code, 2, res.stderr);
    assert.is(res.stdout, '');
    assert.match(res.stderr, expected);
    assert.is(res.stderr.trim().split('\n').length, 1, res.stderr);
  }
});

test('a positional argument the command does not take is exit 2 and changes nothing', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Extra', '--json'])).stdout).id as string;
  const key = JSON.parse((await runOps(ctx.db.url, ['key', 'create', '--org', org, '--name', 'k', '--scopes', 'contacts:read', '--json'])).stdout).id as string;
  const res = await runOps(ctx.db.url, ['key', 'revoke', key, 'another-key', '--json']);
  assert.is(res.code, 2, res.stdout);
  assert.is(res.stdout, '');
  assert.match(res.stderr, /^unexpected argument another-key \(usage: npm run ops -- key revoke ID\)\n$/);
  const named = await runOps(ctx.db.url, ['org', 'create', 'Acme', '--name', 'Acme', '--json']);
  assert.is(named.code, 2, named.stdout);
  const listed = JSON.parse((await runOps(ctx.db.url, ['key', 'list', '--org', org, '--json'])).stdout) as { revoked_at: string | null }[];
  assert.is(listed[0].revoked_at, null);
  // The commands that take several words still do.
  const tagged = await runOps(ctx.db.url, ['creatives', 'tag', '--org', org, 'video:1', 'hook:pain', 'creator:anna', '--json']);
  assert.is(tagged.code, 0, tagged.stderr);
  assert.equal([...JSON.parse(tagged.stdout).tags].sort(), ['creator:anna', 'hook:pain']);
});

test('streams: an unknown stream is not_found and a --limit that is not a positive integer is bad usage, both exit 2', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Streams', '--json'])).stdout).id as string;
  const read = await runOps(ctx.db.url, ['streams', 'read', `organization-${org}`, '--json']);
  assert.is(read.code, 0, read.stderr);
  assert.is(JSON.parse(read.stdout)[0].type, 'OrganizationCreated');
  const missing = await runOps(ctx.db.url, ['streams', 'read', 'organization-no-such-org', '--json']);
  assert.is(missing.code, 2, missing.stdout);
  assert.is(missing.stdout, '');
  assert.match(missing.stderr, /^not_found: no such stream/);
  for (const args of [['streams', 'list', '--limit', 'abc'], ['streams', 'read', `organization-${org}`, '--limit', '0'], ['streams', 'tail', '--limit', '-5']]) {
    const res = await runOps(ctx.db.url, [...args, '--json']);
    assert.is(res.code, 2, args.join(' '));
    assert.is(res.stdout, '', args.join(' '));
    assert.match(res.stderr, /^--limit must be a positive integer/, args.join(' '));
  }
});

test.run();
