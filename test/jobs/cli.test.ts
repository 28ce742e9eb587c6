// `ops jobs enqueue`: a job is queued only for an organisation that exists and an account, page or source it has;
// `ops jobs cancel`: the lines it prints.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from '../reports/cli.ts';
import { startSandbox } from '../../ops/sandbox/server.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: jobs enqueue refuses what the job could only fail on, and changes nothing');

test.before(async (ctx) => { ctx.db = await freshDatabase('jobs_cli'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const ops = async (ctx: Ctx, args: string[]) => runOps(ctx.db.url, [...args, '--json']);
const idOf = async (ctx: Ctx, args: string[]) => {
  const res = await ops(ctx, args);
  assert.is(res.code, 0, res.stderr);
  return JSON.parse(res.stdout).id as string;
};

test('an unknown organisation, or an account, page or source the organisation lacks, is exit 2 and queues no job', async (ctx) => {
  const org = await idOf(ctx, ['org', 'create', '--name', 'Jobs']);
  const other = await idOf(ctx, ['org', 'create', '--name', 'Other']);
  assert.is((await ops(ctx, ['page', 'connect', '--org', other, '--page', '700', '--token', 'P'])).code, 0);
  const shop = await idOf(ctx, ['source', 'create', '--org', org, '--kind', 'shop', '--name', 'Shop']);
  const foreignSheet = await idOf(ctx, ['source', 'create', '--org', other, '--kind', 'spreadsheet', '--name', 'S', '--csv-url', 'http://127.0.0.1:9/s.csv']);
  // Connecting a page or creating a sheet source queues its first run: count from here.
  const queued = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'JobQueued'")).rows[0].count);
  const before = await queued();
  for (const args of [
    ['ad_spend', '--org', 'no-such-org', '--account', 'act_1'],
    ['ad_spend', '--org', org, '--account', 'act_1'],
    ['creative_sync', '--org', org, '--account', '1'],
    ['lead_import', '--org', org, '--page', '700'],
    ['lead_import', '--org', org, '--page', '701'],
    ['sheets_sync', '--org', org, '--source', 'no-such-source'],
    ['sheets_sync', '--org', org, '--source', foreignSheet],
    ['sheets_sync', '--org', org, '--source', shop],
  ]) {
    const res = await ops(ctx, ['jobs', 'enqueue', ...args]);
    assert.is(res.code, 2, `${args.join(' ')}: ${res.stdout}`);
    assert.is(res.stdout, '', args.join(' '));
    assert.ok(res.stderr.length > 0, args.join(' '));
  }
  assert.is(await queued(), before);

  assert.is((await ops(ctx, ['page', 'connect', '--org', org, '--page', '800', '--token', 'P'])).code, 0);
  const sheet = await idOf(ctx, ['source', 'create', '--org', org, '--kind', 'spreadsheet', '--name', 'Orders', '--csv-url', 'http://127.0.0.1:9/o.csv']);
  for (const args of [['lead_import', '--org', org, '--page', '800'], ['sheets_sync', '--org', org, '--source', sheet]]) {
    const res = await ops(ctx, ['jobs', 'enqueue', ...args]);
    assert.is(res.code, 0, res.stderr);
    assert.type(JSON.parse(res.stdout).number, 'number');
  }
});

test('an ad_spend range the sync would refuse (a --since after today, an --until before the default window) is exit 2 and queues no job', async (ctx) => {
  const sandbox = await startSandbox();
  try {
    const env = { PLATFORM_API_URL: sandbox.url };
    const org = await idOf(ctx, ['org', 'create', '--name', 'Spend']);
    sandbox.seedAdAccount({ id: 'act_4100', name: 'Ads', currency: 'PLN', timezoneName: 'Pacific/Kiritimati' });
    const connected = await runOps(ctx.db.url, ['adaccount', 'connect', '--org', org, '--account', 'act_4100', '--token', 'T', '--json'], env);
    assert.is(connected.code, 0, connected.stderr);
    const queued = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'JobQueued'")).rows[0].count);
    const before = await queued();
    // Today in the account's zone (UTC+14): the sync reads its days there.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date());
    const dayFrom = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    for (const days of [['--since', dayFrom(1)], ['--until', dayFrom(-30)]]) {
      const res = await runOps(ctx.db.url, ['jobs', 'enqueue', 'ad_spend', '--org', org, '--account', 'act_4100', ...days, '--json'], env);
      assert.is(res.code, 2, `${days.join(' ')}: ${res.stdout}`);
      assert.is(res.stdout, '', days.join(' '));
      assert.match(res.stderr, /--since must not be after --until/, days.join(' '));
    }
    assert.is(await queued(), before);
    // Today itself, and a past --until with a --since before it, are days the sync reads.
    for (const days of [['--since', today], ['--since', dayFrom(-40), '--until', dayFrom(-30)]]) {
      const res = await runOps(ctx.db.url, ['jobs', 'enqueue', 'ad_spend', '--org', org, '--account', 'act_4100', ...days, '--json'], env);
      assert.is(res.code, 0, `${days.join(' ')}: ${res.stderr}`);
    }
  } finally {
    await sandbox.stop();
  }
});

// The README shows these lines: the job's number on success, and the conflict with the job's status once it finished.
test('jobs cancel prints "job N cancelled"; a job no longer queued or running is the conflict line with its status, exit 2', async (ctx) => {
  const org = await idOf(ctx, ['org', 'create', '--name', 'Cancel']);
  const sheet = await idOf(ctx, ['source', 'create', '--org', org, '--kind', 'spreadsheet', '--name', 'Orders', '--csv-url', 'http://127.0.0.1:9/c.csv']);
  // No worker runs here: the sheet's first run stays queued.
  const queued = await ops(ctx, ['jobs', 'enqueue', 'sheets_sync', '--org', org, '--source', sheet]);
  const { number } = JSON.parse(queued.stdout) as { number: number };
  const cancelled = await runOps(ctx.db.url, ['jobs', 'cancel', String(number), '--org', org]);
  assert.equal([cancelled.code, cancelled.stdout, cancelled.stderr], [0, `job ${number} cancelled\n`, '']);
  const again = await runOps(ctx.db.url, ['jobs', 'cancel', String(number), '--org', org]);
  assert.equal([again.code, again.stdout, again.stderr], [2, '', `conflict: the job is already cancelled {"number":${number},"status":"cancelled"}\n`]);
});

test.run();
