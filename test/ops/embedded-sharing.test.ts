// One embedded cluster under a DATA_DIR, shared by the server and operator commands. A command that starts the
// cluster (the server down) stops it when it ends, so no other process joins it meanwhile: a server started then
// used to join it and lose its database when the command ended; a second command at once ended "cannot start".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { root, start, stopWith } from './service-process.ts';

const test = suite<{ dataDir: string }>('The embedded cluster shared by the server and operator commands');
test.before.each((ctx) => {
  ctx.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-sharing-'));
  fs.chmodSync(ctx.dataDir, 0o755); // as root, the cluster is the postgres user's
});
test.after.each((ctx) => { fs.rmSync(ctx.dataDir, { recursive: true, force: true }); });

/** `npm run ops -- ARGS` on the data directory (no DATABASE_URL): its exit code, stdout and stderr. */
function ops(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'ops/cli.ts', ...args], {
    cwd: root, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('a server started while a command holds the cluster waits for the command to end, then keeps a cluster of its own', async ({ dataDir }) => {
  const command = await startEmbeddedPostgres(dataDir, { fast: true, owner: 'command' }); // this test process is the command
  let waiting: () => void = () => {};
  const saysWaiting = new Promise<void>((resolve) => { waiting = resolve; });
  const starting = start({ DATA_DIR: dataDir, DATABASE_URL: '' }, false, false, (text) => {
    if (/waiting for the operator command \(pid \d+\) that started the embedded PostgreSQL to end/.test(text)) waiting();
  });
  await Promise.race([saysWaiting, starting]); // started without waiting: the next line's check fails
  await command.stop(); // the command ends: the waiting server starts the cluster itself
  const server = await starting;
  try {
    assert.match(server.output(), /waiting for the operator command/);
    // Commands now join the server's cluster, and leave it running when they end.
    const org = await ops(dataDir, ['org', 'create', '--name', 'Shared', '--json']);
    assert.is(org.code, 0, org.stderr);
    const key = await ops(dataDir, ['key', 'create', '--org', JSON.parse(org.stdout).id, '--name', 'k', '--scopes', 'contacts:read', '--json']);
    assert.is(key.code, 0, key.stderr);
    const me = await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${JSON.parse(key.stdout).key}` } });
    assert.is(me.status, 200, await me.text());
  } finally {
    await stopWith(server, 'SIGTERM');
  }
});

test('two commands at once with the server down: the second waits for the first, and both succeed', async ({ dataDir }) => {
  const first = await ops(dataDir, ['org', 'create', '--name', 'Creates the cluster', '--json']);
  assert.is(first.code, 0, first.stderr);
  const both = await Promise.all([ops(dataDir, ['org', 'create', '--name', 'A', '--json']), ops(dataDir, ['org', 'create', '--name', 'B', '--json'])]);
  for (const result of both) assert.is(result.code, 0, result.stderr);
  // Each organisation is in the one cluster: a key is made for it by a later command.
  for (const result of both) {
    const key = await ops(dataDir, ['key', 'create', '--org', JSON.parse(result.stdout).id, '--name', 'k', '--scopes', 'contacts:read', '--json']);
    assert.is(key.code, 0, key.stderr);
  }
});

test.run();
