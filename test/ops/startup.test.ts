// Starting with a bad setting, a database or event store that does not answer, or a port in use: one line saying
// what is wrong ("cannot start: ...", naming the variable) and a non-zero exit, never a stack trace, a hang or a
// service that starts and then fails on every request (PORT=abc, LOG_LEVEL=verbose and JOB_CONCURRENCY=abc started;
// the others printed Node's stack trace, a port in use only after the workers had started).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startDatabaseProxy } from '../support/proxy.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { start, stopWith } from './service-process.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Startup: a bad configuration is one clear line and a non-zero exit');
const root = path.join(import.meta.dirname, '..', '..');

test.before(async (ctx) => { ctx.db = await freshDatabase('startup'); });
test.after(async (ctx) => { await ctx.db.drop(); });

/** Runs `entry` (src/main.ts or the CLI) with the environment given; its exit code and everything it printed. */
function run(entry: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...entry], {
    cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }); }));
}

const unreachablePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

function assertOneLine(result: { code: number | null; output: string }, expected: RegExp): void {
  assert.is(result.code, 1, result.output);
  const lines = result.output.trim().split('\n');
  assert.is(lines.length, 1, result.output);
  assert.match(lines[0], /^cannot start: /);
  assert.match(lines[0], expected);
}

test('loadConfig names the variable of every value it cannot use', () => {
  const bad: Record<string, string> = {
    PORT: 'abc', LOG_LEVEL: 'verbose', JOB_CONCURRENCY: 'abc', WEBHOOK_TIMEOUT_MS: '10s', WEBHOOK_PAUSE_AFTER: '0',
    JOB_MAX_ATTEMPTS: '-1', PLATFORM_SENDING: 'maybe', DELIVERY_RETRY_SCHEDULE: '5x', JOB_LEASE: '1m,2m',
    DATABASE_URL: 'localhost:5432/service', EVENTSTORE_URL: 'http://es:2113', PLATFORM_API_URL: 'graph.facebook.com',
    REQUEST_TIMEOUT_MS: '2147483648', // over what a Node.js timer holds: it would fire at once
    WORKERS: 'false', // read as on: workers ran in a process meant to serve the API only
    WEBHOOK_ALLOW_PRIVATE: 'true', // read as off, without a word
    PLATFORM_API_VERSION: '21.0', // the service started and every platform call was an unknown path
    // Number() reads these as 16, 1000 and 4 (PORT=0x10 listened on port 16).
    JOB_LEADS_BACKFILL_DAYS: '0x10', JOB_SPEND_BACKFILL_DAYS: '1e3', JOB_SPEND_WINDOW_DAYS: ' 4',
  };
  for (const [name, value] of Object.entries(bad)) {
    try {
      loadConfig({ [name]: value });
      assert.unreachable(`${name}=${value} was taken`);
    } catch (error) {
      assert.instance(error, ConfigError, `${name}: ${error}`);
      assert.ok((error as Error).message.startsWith(`${name}`), (error as Error).message);
    }
  }
  // A URL is never echoed: it may hold a password.
  try { loadConfig({ DATABASE_URL: 'mysql://user:s3cret@db/x' }); } catch (error) { assert.not.match((error as Error).message, /s3cret/); }
  assert.is(loadConfig({ JOB_CONCURRENCY: '0', PORT: '0' }).jobs.concurrency, 0, 'no jobs in this process is a choice');
  assert.is(loadConfig({}).requestTimeoutMs, 15_000);
  assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' }), /REQUEST_TIMEOUT_MS="0" is not valid/);
  assert.throws(() => loadConfig({ PORT: '0x10' }), /PORT="0x10" is not valid/);
  assert.throws(() => loadConfig({ PORT: '1e3' }), /PORT="1e3" is not valid/);
  // The table's default reads "unset (off)": "off" itself is refused.
  assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'off' }), /WEBHOOK_ALLOW_PRIVATE="off" is not valid: expected 1 \(on\) or 0 \(off\); empty or unset is off$/);
  assert.is(loadConfig({ PORT: '08080' }).port, 8080);
  // A backfill past the calendar's end failed every sync ("Invalid time value"); one past 37 months the platform refuses.
  assert.throws(() => loadConfig({ JOB_SPEND_BACKFILL_DAYS: '100000000' }), /JOB_SPEND_BACKFILL_DAYS="100000000" is not valid: expected a whole number from 1 to 1095/);
  assert.throws(() => loadConfig({ JOB_LEADS_BACKFILL_DAYS: '1096' }), /JOB_LEADS_BACKFILL_DAYS/);
  assert.is(loadConfig({ JOB_SPEND_WINDOW_DAYS: '1095' }).jobs.spendWindowDays, 1095);
});

// An empty DATA_DIR resolved to the working directory, and the embedded cluster went into the project folder
// (./pg and ./postgres.json beside package.json).
test('an empty DATA_DIR is unset, the default ./.data, as an empty DATABASE_URL or SECRET_KEY is unset', () => {
  assert.is(loadConfig({ DATA_DIR: '' }).dataDir, path.resolve('.data'));
  assert.is(loadConfig({}).dataDir, path.resolve('.data'));
  assert.is(loadConfig({ DATA_DIR: 'elsewhere' }).dataDir, path.resolve('elsewhere'));
});

/** What loadConfig says of an environment it refuses ('taken' when it takes it). */
function configRefusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
    return 'taken';
  } catch (error) {
    return (error as Error).message;
  }
}

// A setting's error read "expected , 0, 1" (WEBHOOK_ALLOW_PRIVATE's accepted values joined, the empty one first)
// and a URL's named neither the value nor, readably, what was wrong with it.
test('every configuration error names the variable, the value given and what is accepted, in plain English', () => {
  const messages: [Record<string, string>, string][] = [
    [{ WEBHOOK_ALLOW_PRIVATE: 'true' }, 'WEBHOOK_ALLOW_PRIVATE="true" is not valid: expected 1 (on) or 0 (off); empty or unset is off'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL="verbose" is not valid: expected debug, info, warn, error or silent'],
    [{ WORKERS: 'false' }, 'WORKERS="false" is not valid: expected on or off'],
    [{ PLATFORM_SENDING: 'yes' }, 'PLATFORM_SENDING="yes" is not valid: expected on or off'],
    [{ PORT: 'abc' }, 'PORT="abc" is not valid: expected a whole number from 0 to 65535'],
    [{ DELIVERY_RETRY_SCHEDULE: '5x' }, 'DELIVERY_RETRY_SCHEDULE="5x" is not valid: expected comma-separated delays, each a number with ms, s, m, h or d (e.g. 500ms,5s,1m,2h)'],
    [{ JOB_LEASE: '0s' }, 'JOB_LEASE="0s" is not valid: expected one delay above zero, a number with ms, s, m, h or d (e.g. 500ms, 5s, 1m, 2h)'],
    [{ DATABASE_URL: 'mysql://user:s3cret@db/x' }, 'DATABASE_URL="mysql://user:***@db/x" is not valid: expected a URL starting with postgres:// or postgresql://'],
    // A password with a "/" (base64 has them) makes the URL unreadable: it was echoed whole and told to start with postgres://.
    [{ DATABASE_URL: 'postgres://app:Zm9v/YmFy+cXV4@db:5432/app' }, 'DATABASE_URL="postgres://app:***@db:5432/app" is not valid: expected a URL that can be read: a port in digits, and a "/", "?" or "#" in its user name or password percent-encoded (%2F, %3F, %23)'],
    [{ DATABASE_URL: 'mysql://user:pa:ss@db/x' }, 'DATABASE_URL="mysql://user:***@db/x" is not valid: expected a URL starting with postgres:// or postgresql://'],
    [{ EVENTSTORE_URL: 'admin:changeit@es:2113' }, 'EVENTSTORE_URL="admin:***@es:2113" is not valid: expected a URL starting with esdb:// or esdb+discover://'],
    [{ PLATFORM_API_URL: 'graph.facebook.com' }, 'PLATFORM_API_URL="graph.facebook.com" is not valid: expected a URL starting with https:// or http://'],
    [{ EVENTSTORE_URL: 'http://es:2113' }, 'EVENTSTORE_URL="http://es:2113" is not valid: expected a URL starting with esdb:// or esdb+discover://'],
  ];
  for (const [env, expected] of messages) assert.is(configRefusal(env), expected);
});

// DELIVERY_RETRY_SCHEDULE=100000000d started, and the first failed send ended in the worker ("RangeError: Invalid time
// value": no date is that far), the delivery left `sending`; JOB_POLL=30d is more than a Node.js timer holds, which
// fires such a delay at once, and WEBHOOK_TIMEOUT_MS=99999999999 made AbortSignal.timeout throw on every push.
// SHUTDOWN_GRACE=soon was told it needed "comma-separated delays", which it does not take.
test('a delay longer than the service can wait for is refused at start; a one-delay setting asks for one delay', () => {
  const messages: [Record<string, string>, string][] = [
    [{ DELIVERY_RETRY_SCHEDULE: '1m,100000000d' }, 'DELIVERY_RETRY_SCHEDULE="1m,100000000d" is not valid: expected comma-separated delays of at most 24d each'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,25d' }, 'WEBHOOK_RETRY_SCHEDULE="5s,25d" is not valid: expected comma-separated delays of at most 24d each'],
    [{ JOB_RETRY_SCHEDULE: '99999999999999h' }, 'JOB_RETRY_SCHEDULE="99999999999999h" is not valid: expected comma-separated delays of at most 24d each'],
    [{ JOB_POLL: '30d' }, 'JOB_POLL="30d" is not valid: expected one delay of at most 24d'],
    [{ SHUTDOWN_GRACE: '600h' }, 'SHUTDOWN_GRACE="600h" is not valid: expected one delay of at most 24d'],
    [{ SHUTDOWN_GRACE: 'soon' }, 'SHUTDOWN_GRACE="soon" is not valid: expected one delay above zero, a number with ms, s, m, h or d (e.g. 500ms, 5s, 1m, 2h)'],
    [{ WEBHOOK_TIMEOUT_MS: '99999999999' }, 'WEBHOOK_TIMEOUT_MS="99999999999" is not valid: expected a whole number from 1 to 2147483647'],
  ];
  for (const [env, expected] of messages) assert.is(configRefusal(env), expected);
  const longest = loadConfig({ DELIVERY_RETRY_SCHEDULE: '1m,24d', JOB_SPEND_EVERY: '24d', SHUTDOWN_GRACE: '24d' });
  assert.equal(longest.deliveryRetrySchedule, [60_000, 24 * 86_400_000]);
  assert.is(longest.shutdownGraceMs, 24 * 86_400_000);
});

test('npm start: a bad value, an unreachable database or event store, a port in use', async (ctx) => {
  const main = ['src/main.ts'];
  const closed = await unreachablePort();
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const takenPort = (taken.address() as net.AddressInfo).port;
  try {
    const [badPort, noDatabase, noEventStore, portInUse] = await Promise.all([
      run(main, { PORT: 'abc', DATABASE_URL: ctx.db.url }),
      run(main, { PORT: '0', DATABASE_URL: `postgres://postgres:pw@127.0.0.1:${closed}/service` }),
      run(main, { PORT: '0', DATABASE_URL: ctx.db.url, EVENTSTORE_URL: `esdb://127.0.0.1:${closed}?tls=false` }),
      run(main, { PORT: String(takenPort), DATABASE_URL: ctx.db.url }),
    ]);
    assertOneLine(badPort, /PORT="abc" is not valid/);
    assertOneLine(noDatabase, new RegExp(`cannot reach the database at 127\\.0\\.0\\.1:${closed}/service: .*ECONNREFUSED`));
    assert.not.match(noDatabase.output, /:pw@/);
    assertOneLine(noEventStore, new RegExp(`cannot reach EventStoreDB at 127\\.0\\.0\\.1:${closed}`));
    assertOneLine(portInUse, new RegExp(`port ${takenPort} is in use \\(PORT\\)`));
  } finally {
    taken.close();
  }
});

// DESIGN.md: "GET /healthz ... answers 200 once the service is ready and 503 while it is not". The port used to be
// taken only once everything had started: while the database, the migrations and the workers started, nothing answered.
test('npm start: /healthz answers 503 while the service starts (a database that does not answer yet), 200 once ready', async (ctx) => {
  const proxy = await startDatabaseProxy(ctx.db.url);
  proxy.freeze();
  const port = await unreachablePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, env: { ...process.env, LOG_LEVEL: 'info', PORT: String(port), DATABASE_URL: proxy.url }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const closed = new Promise((resolve) => child.on('close', resolve));
  const origin = `http://127.0.0.1:${port}`;
  const answer = async (path: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        return await fetch(`${origin}${path}`, { headers: { 'Accept-Language': 'en' } });
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no answer on ${path}: ${error}\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  try {
    const starting = await answer('/healthz');
    assert.is(starting.status, 503, output);
    assert.equal(await starting.json(), { status: 'starting' });
    const api = await answer('/v1/me');
    assert.is(api.status, 500);
    assert.is(((await api.json()) as { error: { code: string } }).error.code, 'internal_error');
    assert.not.match(output, /service ready/);
    proxy.thaw();
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await answer('/healthz')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.is(status, 200, output);
    assert.match(output, /service ready/);
  } finally {
    proxy.thaw();
    child.kill('SIGTERM');
    await closed;
    await proxy.close();
  }
});

test('npm start prints the URL whatever LOG_LEVEL keeps out of the log', async (ctx) => {
  for (const level of ['warn', 'error', 'silent']) {
    const started = await start({ DATABASE_URL: ctx.db.url, LOG_LEVEL: level, WORKERS: 'off' });
    try {
      assert.match(started.url, /^http:\/\/localhost:\d+\/v1$/, started.output());
      assert.is((await fetch(`${started.url.replace(/\/v1$/, '')}/healthz`)).status, 200, level);
    } finally {
      assert.is(await stopWith(started, 'SIGTERM'), 0, started.output());
    }
  }
});

// DESIGN.md: WEBHOOK_ALLOW_PRIVATE "is off by default and says so in the log when on"; LOG_LEVEL=error or silent hid the line.
test('npm start says WEBHOOK_ALLOW_PRIVATE=1 is on whatever LOG_LEVEL keeps out of the log', async (ctx) => {
  for (const level of ['info', 'error', 'silent']) {
    const started = await start({ DATABASE_URL: ctx.db.url, LOG_LEVEL: level, WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE: '1' });
    try {
      assert.match(started.output(), /"level":"warn","msg":"WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback receivers/, level);
    } finally {
      assert.is(await stopWith(started, 'SIGTERM'), 0, started.output());
    }
  }
  const off = await start({ DATABASE_URL: ctx.db.url, WORKERS: 'off' });
  try {
    assert.not.match(off.output(), /WEBHOOK_ALLOW_PRIVATE/);
  } finally {
    assert.is(await stopWith(off, 'SIGTERM'), 0, off.output());
  }
});

test('the CLI: the same line, exit code 2', async () => {
  const closed = await unreachablePort();
  const result = await run(['ops/cli.ts', 'org', 'create', '--name', 'X', '--json'], { DATABASE_URL: `postgres://postgres:pw@127.0.0.1:${closed}/service` });
  assert.is(result.code, 2, result.output);
  assert.match(result.output.trim(), new RegExp(`^cannot start: cannot reach the database at 127\\.0\\.0\\.1:${closed}/service: [^\\n]*$`));
});

test('the CLI: a SECRET_KEY that does not open the database\'s secrets is the server\'s line too, not an "unexpected error"', async (ctx) => {
  const first = await run(['ops/cli.ts', 'org', 'create', '--name', 'Before the key', '--json'], { DATABASE_URL: ctx.db.url });
  assert.is(first.code, 0, first.output);
  const result = await run(['ops/cli.ts', 'org', 'create', '--name', 'With a key', '--json'], { DATABASE_URL: ctx.db.url, SECRET_KEY: 'set later' });
  assert.is(result.code, 2, result.output);
  assert.match(result.output, /^cannot start: SECRET_KEY was set after secrets were stored under the database's own key: start without it\n$/);
});

// README: the first start fixes whether SECRET_KEY is used; after a start with it, a process without it (or with an
// empty one) or with another ends its start with the line naming the problem, npm start with 1, the CLI with 2.
test('after a first start with SECRET_KEY, none (or an empty one) or another ends npm start and the CLI with one line', async () => {
  const db = await freshDatabase('startup_secret_key');
  try {
    const first = await run(['ops/cli.ts', 'org', 'create', '--name', 'With a key', '--json'], { DATABASE_URL: db.url, SECRET_KEY: 'first key' });
    assert.is(first.code, 0, first.output);
    for (const [key, line] of [
      ['', 'secrets at rest are encrypted with a SECRET_KEY: start every process with the same SECRET_KEY'],
      ['another key', 'SECRET_KEY does not open the secrets stored in this database (another SECRET_KEY was used first)'],
    ]) {
      const cli = await run(['ops/cli.ts', 'org', 'create', '--name', 'X', '--json'], { DATABASE_URL: db.url, SECRET_KEY: key });
      assert.equal([cli.code, cli.output], [2, `cannot start: ${line}\n`], key);
      const server = await run(['src/main.ts'], { DATABASE_URL: db.url, SECRET_KEY: key, PORT: '0', LOG_LEVEL: 'silent' });
      assert.equal([server.code, server.output], [1, `cannot start: ${line}\n`], key);
    }
  } finally {
    await db.drop();
  }
});

// A rollback: an older release started on a database a newer one had migrated served it and answered 500
// internal_error ("column f.spend does not exist") on the reports; it now ends its start with one line.
test('a database a newer release has migrated: npm start and the CLI refuse with one line and change nothing', async () => {
  const db = await freshDatabase('startup_newer_release');
  try {
    // A migration this code dropped on purpose is not a newer release's.
    await db.pool.query(`INSERT INTO schema_migrations (id) VALUES ('projector:reporting_leads:0004_reporting_lead_levels')`);
    const before = await run(['ops/cli.ts', 'org', 'create', '--name', 'Before', '--json'], { DATABASE_URL: db.url });
    assert.is(before.code, 0, before.output);
    await db.pool.query(`INSERT INTO schema_migrations (id) VALUES ('projector:contacts:9999_from_a_newer_release')`);
    const line = 'cannot start: the database was migrated by a newer release of the service (migration projector:contacts:9999_from_a_newer_release is not one this release has): start that release or a newer one\n';
    const server = await run(['src/main.ts'], { DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'silent' });
    assert.equal([server.code, server.output], [1, line]);
    const cli = await run(['ops/cli.ts', 'org', 'create', '--name', 'After', '--json'], { DATABASE_URL: db.url });
    assert.equal([cli.code, cli.output], [2, line]);
    const { rows } = await db.pool.query<{ name: string }>(`SELECT data->>'name' AS name FROM es_events WHERE event_type = 'OrganizationCreated'`);
    assert.equal(rows.map((r) => r.name), ['Before']);
  } finally {
    await db.drop();
  }
});

test('the CLI: an embedded PostgreSQL that will not start (its cluster held by another process) is one line, not a TypeError\'s stack', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-held-'));
  fs.chmodSync(dataDir, 0o755); // as root, the cluster is the postgres user's
  const held = await startEmbeddedPostgres(dataDir, { fast: true });
  try {
    // The holder's port file gone: the CLI finds no running cluster to join and tries to start the held one.
    fs.rmSync(path.join(dataDir, 'postgres.json'));
    const result = await run(['ops/cli.ts', 'org', 'create', '--name', 'X', '--json'], { DATA_DIR: dataDir, DATABASE_URL: '' });
    assert.is(result.code, 2, result.output);
    assert.match(result.output, /^cannot start: the embedded PostgreSQL did not start: another process holds its cluster \(\S+postmaster\.pid\) and does not share it\n$/);
  } finally {
    await held.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('DATA_DIR naming a file: one line saying so, from the server and the CLI', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-file-')), 'data');
  fs.writeFileSync(file, 'not a directory');
  try {
    const cli = await run(['ops/cli.ts', 'org', 'create', '--name', 'X', '--json'], { DATA_DIR: file, DATABASE_URL: '' });
    assert.is(cli.code, 2, cli.output);
    assert.is(cli.output, `cannot start: DATA_DIR ${file} is not a directory\n`);
    const server = await run(['src/main.ts'], { DATA_DIR: file, DATABASE_URL: '', PORT: '0' });
    assert.is(server.code, 1, server.output);
    assert.is(server.output, `cannot start: DATA_DIR ${file} is not a directory\n`);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

// Node's recursive mkdir never returned for a path under /proc: the start hung.
test('DATA_DIR that cannot be created (/proc/x, under a file): one line saying so, from the server and the CLI, at once', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-file-')), 'data');
  fs.writeFileSync(file, 'not a directory');
  try {
    for (const dir of ['/proc/leftovers-data', path.join(file, 'sub')]) {
      const cli = await run(['ops/cli.ts', 'org', 'create', '--name', 'X', '--json'], { DATA_DIR: dir, DATABASE_URL: '' });
      assert.is(cli.code, 2, cli.output);
      assert.match(cli.output, new RegExp(`^cannot start: DATA_DIR ${dir} cannot be created: E[A-Z]+: [^\n]+\n$`));
      const server = await run(['src/main.ts'], { DATA_DIR: dir, DATABASE_URL: '', PORT: '0' });
      assert.is(server.code, 1, server.output);
      assert.match(server.output, new RegExp(`^cannot start: DATA_DIR ${dir} cannot be created: `));
    }
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test.run();
