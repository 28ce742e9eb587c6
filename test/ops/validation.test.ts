// The operator CLI refuses option values it cannot mean: one line on stderr, exit code 2, nothing on stdout
// and no event appended; the same command with a good value works.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from '../reports/cli.ts';
import { startSandbox } from '../../ops/sandbox/server.ts';

interface Ctx { db: TestDatabase; org: string }
const test = suite<Ctx>('Operator CLI: a bad option value is one line on stderr, exit 2, and nothing written');

const ops = (ctx: Ctx, args: string[]) => runOps(ctx.db.url, [...args, '--json']);
const events = async (ctx: Ctx) => Number((await ctx.db.pool.query('SELECT count(*) FROM es_events')).rows[0].count);

async function idOf(ctx: Ctx, args: string[]): Promise<string> {
  const res = await ops(ctx, args);
  assert.is(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  return JSON.parse(res.stdout).id as string;
}

/** Each command line is refused with a stderr line matching its pattern, and the store gains no event. */
async function refused(ctx: Ctx, cases: [string[], RegExp][]): Promise<void> {
  const before = await events(ctx);
  for (const [args, expected] of cases) {
    const res = await ops(ctx, args);
    const label = args.join(' ');
    assert.is(res.code, 2, `${label}: ${res.stdout}`);
    assert.is(res.stdout, '', label);
    assert.match(res.stderr, expected, label);
    assert.is(res.stderr.trim().split('\n').length, 1, `${label}: ${res.stderr}`);
  }
  assert.is(await events(ctx), before, 'no event appended');
}

test.before(async (ctx) => {
  ctx.db = await freshDatabase('ops_validation');
  ctx.org = await idOf(ctx, ['org', 'create', '--name', 'Validation']);
});
test.after(async (ctx) => { await ctx.db.drop(); });

test('key create --expires: a time in the past, or one the calendar lacks, makes no key; a later time does', async (ctx) => {
  const key = (expires: string) => ['key', 'create', '--org', ctx.org, '--name', `k ${expires}`, '--scopes', 'contacts:read', '--expires', expires];
  const justNow = new Date(Date.now() - 1000).toISOString();
  await refused(ctx, [
    [key('2020-01-01T00:00:00Z'), /^--expires is in the past: 2020-01-01T00:00:00Z/],
    [key(justNow), /^--expires is in the past/],
    [key('2020-01-01'), /^--expires is in the past/],
    // Date.parse reads the first as 1 June ("jun" of junk) and the second as 2 March.
    [key('2099-01-01 junk'), /^--expires is not an ISO 8601 time: 2099-01-01 junk$/m],
    [key('2099-02-30'), /^--expires is not an ISO 8601 time/],
    [key('2099-01-01T24:30:00Z'), /^--expires is not an ISO 8601 time/],
  ]);
  const listed = async () => JSON.parse((await ops(ctx, ['key', 'list', '--org', ctx.org])).stdout) as { name: string; expires_at: string | null }[];
  assert.equal(await listed(), []);
  const later = await ops(ctx, key('2099-01-01T10:00:00+02:00'));
  assert.is(later.code, 0, later.stderr);
  assert.equal((await listed()).map((k) => k.expires_at), ['2099-01-01T08:00:00.000Z']);
});

test('target create --dataset: only the platform\'s numeric dataset id is taken; an empty --test-code is missing, a long one or one with a space says so', async (ctx) => {
  const target = (dataset: string, ...more: string[]) => ['target', 'create', '--org', ctx.org, '--dataset', dataset, '--token', 'EAAB-token', ...more];
  await refused(ctx, [
    [target('ds-3001'), /^--dataset must be the platform's numeric dataset \(pixel\) id, got ds-3001$/m],
    [target('My pixel'), /^--dataset must be the platform's numeric dataset/],
    [target('123abc'), /^--dataset must be the platform's numeric dataset/],
    [target('-123'), /^--dataset must be the platform's numeric dataset/],
    [target(' 123'), /^--dataset must be the platform's numeric dataset/],
    [target('123', '--test-code', ''), /^missing --test-code$/m],
    // Was 'test mode needs the test event code ...', as if none had been given.
    [target('123', '--test-code', 'T'.repeat(65)), /^validation_error: --test-code: at most 64 characters, got 65 /m],
    [target('123', '--test-code', 'TEST 42'), /^validation_error: --test-code: letters, digits, - and _ only/m],
  ]);
  const listed = async () => JSON.parse((await ops(ctx, ['target', 'list', '--org', ctx.org])).stdout) as { dataset_id: string; mode: string }[];
  assert.equal(await listed(), []);
  await idOf(ctx, target('123456789', '--test-code', 'TEST42'));
  await idOf(ctx, target('123456790', '--test-code', 'T'.repeat(64)));
  assert.equal((await listed()).map((t) => [t.dataset_id, t.mode]).sort(), [['123456789', 'test'], ['123456790', 'test']]);
});

test('page connect, source create --form-id, adaccount connect, jobs enqueue: only the platform\'s numeric page and form ids and act_<digits> accounts are taken', async (ctx) => {
  const connect = (page: string) => ['page', 'connect', '--org', ctx.org, '--page', page, '--token', 'P'];
  const form = (formId: string) => ['source', 'create', '--org', ctx.org, '--kind', 'form', '--name', 'Numeric form', '--form-id', formId];
  const enqueue = (...args: string[]) => ['jobs', 'enqueue', ...args, '--org', ctx.org];
  await refused(ctx, [
    [connect('page-88'), /^--page must be the platform's numeric page id, got page-88$/m],
    [connect('My clinic'), /^--page must be the platform's numeric page id/m],
    [connect('https://facebook.com/100200'), /^--page must be the platform's numeric page id/m],
    [connect('-100200'), /^--page must be the platform's numeric page id/m],
    [connect('100200 '), /^--page must be the platform's numeric page id/m],
    [form('form-77'), /^--form-id must be the platform's numeric form id, got form-77$/m],
    [form('777x'), /^--form-id must be the platform's numeric form id/m],
    [form(''), /^missing --form-id$/m],
    [['adaccount', 'connect', '--org', ctx.org, '--account', 'act-4242', '--token', 'T'], /^--account must be the platform's ad account id act_<digits>, got act-4242$/m],
    [['adaccount', 'connect', '--org', ctx.org, '--account', 'act_42x', '--token', 'T'], /^--account must be the platform's ad account id/m],
    [enqueue('lead_import', '--page', 'page-88'), /^--page must be the platform's numeric page id, got page-88$/m],
    [enqueue('ad_spend', '--account', 'my account'), /^--account must be the platform's ad account id act_<digits>, got my account$/m],
  ]);
  const connected = await ops(ctx, connect('100200'));
  assert.is(connected.code, 0, connected.stderr);
  assert.equal(JSON.parse(connected.stdout).page_id, '100200');
  const source = await idOf(ctx, form('7770001'));
  const listed = JSON.parse((await ops(ctx, ['source', 'list', '--org', ctx.org])).stdout) as { id: string; platform_form_id: string | null }[];
  assert.equal(listed.filter((s) => s.id === source).map((s) => s.platform_form_id), ['7770001']);
});

// `--timezone europe/warsaw` was stored as typed (the currency's case was already fixed), so the reports' `timezone` said
// "europe/warsaw", a zone name Java's ZoneId or Python's zoneinfo on Linux do not know.
test('org create --timezone: the zone is stored under its own name, whatever the case it was typed in', async (ctx) => {
  for (const [typed, stored] of [['europe/warsaw', 'Europe/Warsaw'], ['utc', 'UTC'], ['AMERICA/NEW_YORK', 'America/New_York']]) {
    const org = await idOf(ctx, ['org', 'create', '--name', `Zone ${typed}`, '--timezone', typed]);
    const report = await ops(ctx, ['reports', 'campaign', '--org', org]);
    assert.is(report.code, 0, report.stderr);
    assert.is(JSON.parse(report.stdout).timezone, stored, typed);
  }
  await refused(ctx, [[['org', 'create', '--name', 'Nowhere', '--timezone', 'Europe/Atlantis'], /^--timezone must be an IANA time zone such as Europe\/Warsaw, got Europe\/Atlantis$/m]]);
});

// A platform that was down or failed for a while read "validation_error: the platform refused the account: network error:
// connect ECONNREFUSED ...": the operator was sent to check an account and a token that were fine.
test('adaccount connect: a platform that cannot answer is said to be so, not to refuse the account; nothing is connected', async (ctx) => {
  const sandbox = await startSandbox();
  try {
    sandbox.seedAdAccount({ id: 'act_4300', name: 'Ads', currency: 'PLN', timezoneName: 'Europe/Warsaw' });
    const connect = (url: string, account = 'act_4300') => runOps(ctx.db.url, ['adaccount', 'connect', '--org', ctx.org, '--account', account, '--token', 'T', '--json'], { PLATFORM_API_URL: url });
    const before = await events(ctx);
    const closed = new URL(sandbox.url);
    closed.port = '9';
    sandbox.injectFailures({ match: 'act_4300', count: 100 });
    for (const [url, cause] of [[closed.origin, /network error/], [sandbox.url, /An unexpected error has occurred/]] as const) {
      const res = await connect(url);
      assert.is(res.code, 2, res.stdout);
      assert.is(res.stdout, '');
      assert.is(res.stderr.trim().split('\n').length, 1, res.stderr);
      assert.match(res.stderr, /^the platform could not answer about act_4300 now \(/);
      assert.match(res.stderr, cause);
      assert.match(res.stderr, new RegExp(`nothing was connected; try again \\(asked at PLATFORM_API_URL ${url.replace(/[.]/g, '\\.')}\\)$`, 'm'));
      assert.not.match(res.stderr, /refused|validation_error/);
    }
    assert.is(await events(ctx), before, 'no event appended');
    // A refusal is still one: an account the platform does not know.
    const unknown = await connect(sandbox.url, 'act_4301');
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /^validation_error: the platform refused the account: Unsupported get request/);
    sandbox.reset();
    sandbox.seedAdAccount({ id: 'act_4300', name: 'Ads', currency: 'PLN', timezoneName: 'Europe/Warsaw' });
    const connected = await connect(sandbox.url);
    assert.is(connected.code, 0, connected.stderr);
    assert.is(JSON.parse(connected.stdout).account, 'act_4300');
  } finally {
    await sandbox.stop();
  }
});

test('jobs: a day option the kind does not read, another kind\'s target, a day the calendar lacks or a number not in digits is refused', async (ctx) => {
  assert.is((await ops(ctx, ['page', 'connect', '--org', ctx.org, '--page', '800', '--token', 'P'])).code, 0);
  const enqueue = (...args: string[]) => ['jobs', 'enqueue', ...args, '--org', ctx.org];
  const queued = await ops(ctx, enqueue('lead_import', '--page', '800', '--since', '2028-02-29'));
  assert.is(queued.code, 0, queued.stderr);
  const job = JSON.parse(queued.stdout).number as number;
  await refused(ctx, [
    [enqueue('creative_sync', '--account', 'act_1', '--since', '2026-01-01'), /^creative_sync takes no --since$/m],
    [enqueue('sheets_sync', '--source', 'some-source', '--until', '2026-01-01'), /^sheets_sync takes no --until$/m],
    [enqueue('lead_import', '--page', '800', '--until', '2026-01-02'), /^lead_import takes no --until$/m],
    [enqueue('lead_import', '--page', '800', '--account', 'act_1'), /^lead_import works on --page, not --account$/m],
    [enqueue('ad_spend', '--account', 'act_1', '--source', 'some-source'), /^ad_spend works on --account, not --source$/m],
    [enqueue('ad_spend', '--account', 'act_1', '--since', '2026-02-30'), /^--since must be a day YYYY-MM-DD, got 2026-02-30$/m],
    [enqueue('lead_import', '--page', '800', '--since', '2026-04-31'), /^--since must be a day YYYY-MM-DD, got 2026-04-31$/m],
    [['jobs', 'cancel', `0x${job.toString(16)}`, '--org', ctx.org], /^the job number must be a positive integer, got 0x/m],
    [['jobs', 'cancel', `${job}e0`, '--org', ctx.org], /^the job number must be a positive integer, got \d+e0$/m],
    [['jobs', 'list', '--org', ctx.org, '--limit', '1e2'], /^--limit must be a positive integer, got 1e2$/m],
    [['jobs', 'list', '--org', ctx.org, '--limit', '1001'], /^--limit must be 1-1000$/m],
    [['streams', 'list', '--limit', '0x10'], /^--limit must be a positive integer, got 0x10$/m],
  ]);
  // The job is still queued: "0x.." and "..e0" were not read as its number.
  const jobs = JSON.parse((await ops(ctx, ['jobs', 'list', '--org', ctx.org, '--limit', '10'])).stdout) as { number: number; status: string }[];
  assert.equal(jobs.map((j) => [j.number, j.status]), [[job, 'queued']]);
});

test('org create and key create: a blank name, a currency ISO 4217 lacks, an unknown time zone or a calling code beginning with 0 is refused, naming the option', async (ctx) => {
  const orgs = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'OrganizationCreated'")).rows[0].count);
  const before = await orgs();
  await refused(ctx, [
    [['org', 'create', '--name', '   '], /^--name must not be blank$/m],
    [['key', 'create', '--org', ctx.org, '--name', '  ', '--scopes', 'contacts:read'], /^--name must not be blank$/m],
    // The option as typed, as every other option error names it.
    [['org', 'create', '--name', 'Acme', '--currency', 'XYZ'], /^--currency must be an ISO 4217 code, got XYZ$/m],
    [['org', 'create', '--name', 'Acme', '--currency', 'xyz'], /^--currency must be an ISO 4217 code, got xyz$/m],
    [['org', 'create', '--name', 'Acme', '--timezone', 'Mars/Base'], /^--timezone must be an IANA time zone such as Europe\/Warsaw, got Mars\/Base$/m],
    [['org', 'create', '--name', 'Acme', '--phone-country-code', '0'], /^--phone-country-code must be 1-3 digits, not beginning with 0$/m],
    [['org', 'create', '--name', 'Acme', '--phone-country-code', '048'], /^--phone-country-code must be 1-3 digits/m],
  ]);
  await idOf(ctx, ['org', 'create', '--name', 'Acme', '--currency', 'eur', '--phone-country-code', '1']);
  assert.is(await orgs(), before + 1);
});

test('org create and key create: a name over 200 characters (as the API counts them) is refused; 200 are taken', async (ctx) => {
  const orgs = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'OrganizationCreated'")).rows[0].count);
  const key = (name: string) => ['key', 'create', '--org', ctx.org, '--name', name, '--scopes', 'contacts:read'];
  await refused(ctx, [
    [['org', 'create', '--name', 'A'.repeat(201)], /^--name must be at most 200 characters, got 201$/m],
    [['org', 'create', '--name', 'x'.repeat(5000)], /^--name must be at most 200 characters, got 5000$/m],
    [key('k'.repeat(201)), /^--name must be at most 200 characters, got 201$/m],
    [key('🔑'.repeat(201)), /^--name must be at most 200 characters, got 201$/m],
  ]);
  const before = await orgs();
  await idOf(ctx, ['org', 'create', '--name', 'A'.repeat(200)]);
  assert.is(await orgs(), before + 1);
  // 200 emoji are 400 UTF-16 units: still 200 characters.
  assert.is((await ops(ctx, key('🔑'.repeat(200)))).code, 0);
  const names = (JSON.parse((await ops(ctx, ['key', 'list', '--org', ctx.org])).stdout) as { name: string }[]).map((k) => k.name);
  assert.ok(names.includes('🔑'.repeat(200)));
});

test('jobs enqueue sheets_sync: a spreadsheet source without a CSV address has no sheet to read, so no job that could only fail is queued', async (ctx) => {
  const bare = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'spreadsheet', '--name', 'Posted rows']);
  await refused(ctx, [
    [['jobs', 'enqueue', 'sheets_sync', '--org', ctx.org, '--source', bare], /^sheets_sync needs a sheet to read; source .* was created without --csv-url/m],
  ]);
  const sheet = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'spreadsheet', '--name', 'Orders', '--csv-url', 'http://127.0.0.1:1/orders.csv']);
  const queued = await ops(ctx, ['jobs', 'enqueue', 'sheets_sync', '--org', ctx.org, '--source', sheet]);
  assert.is(queued.code, 0, queued.stderr);
});

test('page connect --token: an empty token or one with a space inside is refused, as a target\'s is; one with spaces around it is trimmed', async (ctx) => {
  const connect = (token: string) => ['page', 'connect', '--org', ctx.org, '--page', '919191', '--token', token];
  await refused(ctx, [
    [connect('EAAB page token'), /^validation_error: --token: the page access token \(not empty, no spaces\)/],
    [connect('EAAB-one\nEAAB-two'), /^validation_error: --token: the page access token/],
    [connect('   '), /^validation_error: --token: the page access token/],
  ]);
  const res = await ops(ctx, connect(' EAAB-page-token '));
  assert.is(res.code, 0, res.stderr);
});

test('page connect: a page connected to another organisation is moved, and the command says from where', async (ctx) => {
  const other = await idOf(ctx, ['org', 'create', '--name', 'Other']);
  const connect = (org: string) => ['page', 'connect', '--org', org, '--page', '909090', '--token', 'P'];
  assert.equal(JSON.parse((await ops(ctx, connect(other))).stdout).moved_from, null);
  assert.equal(JSON.parse((await ops(ctx, connect(other))).stdout).moved_from, null, 'connected again to the same organisation');
  const moved = await runOps(ctx.db.url, connect(ctx.org));
  assert.is(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, new RegExp(`^page 909090 connected to organisation ${ctx.org} \\(moved from organisation ${other}: `));
});

test('source create --form-id: a form id on a shop or sheet source is refused', async (ctx) => {
  await refused(ctx, [
    [['source', 'create', '--org', ctx.org, '--kind', 'shop', '--name', 'Shop', '--form-id', '555'], /^--form-id belongs to a form source$/m],
    [['source', 'create', '--org', ctx.org, '--kind', 'spreadsheet', '--name', 'Sheet', '--form-id', '555'], /^--form-id belongs to a form source$/m],
  ]);
  const shop = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'shop', '--name', 'Shop']);
  const listed = JSON.parse((await ops(ctx, ['source', 'list', '--org', ctx.org])).stdout) as { id: string; platform_form_id: string | null }[];
  assert.equal(listed.filter((s) => s.id === shop).map((s) => s.platform_form_id), [null]);
});

// A field given two headers was read from the one typed last, without a word (an option given twice is refused too).
test('source create --columns: a field given two headers is refused; one header a field is taken', async (ctx) => {
  const sheet = (columns: string) => ['source', 'create', '--org', ctx.org, '--kind', 'spreadsheet', '--name', 'Sheet', '--columns', columns];
  await refused(ctx, [
    [sheet('email=E-mail,email=Mail'), /^--columns gives email two headers: E-mail and Mail$/m],
    [sheet('external_id=Order, status=Stage, external_id = Order'), /^--columns gives external_id two headers: Order and Order$/m],
  ]);
  await idOf(ctx, sheet('external_id=Order,status=Stage,email=Mail'));
});

test('flow create: a lead stage on a shop or sheet source (which has no leads) and a caller status on a form source are refused', async (ctx) => {
  const target = await idOf(ctx, ['target', 'create', '--org', ctx.org, '--dataset', '4242', '--token', 'EAAB-token']);
  const shop = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'shop', '--name', 'Flow shop']);
  const form = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'form', '--name', 'Flow form', '--form-id', '777']);
  const flow = (source: string, ...trigger: string[]) => ['flow', 'create', '--source', source, '--target', target, '--event-name', 'Lead', ...trigger];
  await refused(ctx, [
    [flow(shop, '--stage', 'qualified'), /^validation_error: --stage: .*"field":"--stage".*this source takes caller statuses/m],
    [flow(form, '--status', 'won'), /^validation_error: --status: .*"field":"--status".*lead stages/m],
  ]);
  await idOf(ctx, flow(shop, '--status', 'won'));
  await idOf(ctx, flow(form, '--stage', 'qualified'));
});

// The shared commands name fields as the API does: the CLI said csv_url where the operator typed --csv-url.
test('a validation error names the option (or the usage word) the operator typed, not the API field', async (ctx) => {
  const target = await idOf(ctx, ['target', 'create', '--org', ctx.org, '--dataset', '4343', '--token', 'EAAB-token']);
  const shop = await idOf(ctx, ['source', 'create', '--org', ctx.org, '--kind', 'shop', '--name', 'Typed shop']);
  await refused(ctx, [
    [['source', 'create', '--org', ctx.org, '--kind', 'spreadsheet', '--name', 'Sheet', '--csv-url', 'ftp://example.com/x.csv'],
      /^validation_error: --csv-url: an http\(s\) URL \{"fields":\[\{"field":"--csv-url","message":"an http\(s\) URL"\}\]\}$/m],
    [['source', 'create', '--org', ctx.org, '--kind', 'shop', '--name', 'Shop', '--csv-url', 'https://example.com/x.csv'], /^validation_error: --csv-url: only a spreadsheet source/m],
    [['target', 'create', '--org', ctx.org, '--dataset', '4444', '--token', 'T', '--mode', 'live', '--test-code', 'TEST1'], /^validation_error: --test-code: a test event code belongs to test mode/m],
    [['flow', 'create', '--source', shop, '--target', target, '--event-name', 'Lead!', '--status', 'won'], /^validation_error: --event-name: /m],
    [['creatives', 'tag', '--org', ctx.org, 'not-a-group', 'hook:x'], /^validation_error: GROUP_ID: expected video:<id>/m],
    [['creatives', 'tag', '--org', ctx.org, 'video:1', 'mood:x'], /^validation_error: DIMENSION:VALUE: expected DIMENSION:VALUE with dimension/m],
  ]);
});

// hook:a hook:b tagged the group hook:b without a word, as an option given twice used to take the last one.
test('creatives tag: a dimension given twice is refused and nothing is tagged; each dimension once is taken', async (ctx) => {
  const tag = (...tags: string[]) => ['creatives', 'tag', '--org', ctx.org, 'video:twice', ...tags];
  await refused(ctx, [
    [tag('hook:a', 'hook:b'), /^validation_error: DIMENSION:VALUE: hook is given twice \(hook:a and hook:b\): give each dimension once /m],
    [tag('creator:anna', 'Offer:x', 'offer:'), /^validation_error: DIMENSION:VALUE: offer is given twice \(offer:x and offer:\): give each dimension once /m],
    [tag('hook:a', 'hook:a'), /^validation_error: DIMENSION:VALUE: hook is given twice \(hook:a and hook:a\)/m],
  ]);
  const res = await ops(ctx, tag('hook:a', 'creator:anna', 'offer:'));
  assert.is(res.code, 0, res.stderr);
  assert.equal(JSON.parse(res.stdout).tags, ['hook:a', 'creator:anna']);
});

test('owners roundrobin: a user named twice is printed and stored once; --users with no user is refused', async (ctx) => {
  await refused(ctx, [
    [['owners', 'roundrobin', '--org', ctx.org, '--users', ' , '], /^--users needs at least one user id$/m],
  ]);
  const res = await ops(ctx, ['owners', 'roundrobin', '--org', ctx.org, '--users', 'ann,bob,ann']);
  assert.is(res.code, 0, res.stderr);
  assert.equal(JSON.parse(res.stdout).users, ['ann', 'bob']);
  const stored = await ctx.db.pool.query("SELECT data->'users' AS users FROM es_events WHERE event_type = 'RoundRobinConfigured' ORDER BY global_position DESC LIMIT 1");
  assert.equal(stored.rows[0].users, ['ann', 'bob']);
});

test('reports --as-of: a time the calendar lacks is refused, not read as another day', async (ctx) => {
  await refused(ctx, [
    [['reports', 'campaign', '--org', ctx.org, '--as-of', '2026-02-30T10:00:00Z'], /^--as-of is not an ISO 8601 time: 2026-02-30T10:00:00Z$/m],
    [['reports', 'campaign', '--org', ctx.org, '--as-of', '2026-01-01'], /^--as-of is not an ISO 8601 time/m],
    [['reports', 'creative', '--org', ctx.org, '--as-of', '2026-01-01T10:00:00Z junk'], /^--as-of is not an ISO 8601 time/m],
  ]);
  const past = await ops(ctx, ['reports', 'campaign', '--org', ctx.org, '--as-of', '2026-01-01T10:00:00+0100']);
  assert.is(past.code, 0, past.stderr);
  assert.match(JSON.parse(past.stdout).as_of, /^2026-01-01T09:00:00/);
});

test('projections rebuild: a name and --all together is refused, and no read model is rebuilt', async (ctx) => {
  // A rebuild swaps fresh tables in: the tables' object ids tell whether one ran.
  const tables = async () => (await ctx.db.pool.query("SELECT relname, oid::text FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname")).rows;
  const before = await tables();
  await refused(ctx, [
    [['projections', 'rebuild', 'setup', '--all'], /^name a projector or pass --all, not both$/m],
    [['projections', 'rebuild', 'no_such_projector', '--all'], /^name a projector or pass --all, not both$/m],
  ]);
  assert.equal(await tables(), before);
});

test.run();
