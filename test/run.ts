// `npm test`: start one embedded PostgreSQL, run every *.test.ts file with uvu in one process, stop
// PostgreSQL, and close with the plain summary line "N passed, N failed".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';

const root = path.resolve(import.meta.dirname, '..');
const pattern = process.argv[2] ?? '\\.test\\.ts$';
// A cluster of its own per run, so that several runs (engineers, CI) never stop each other's database.
const dataDir = path.join(root, '.test-data', String(process.pid));
const db = await startEmbeddedPostgres(dataDir, { fast: true });

let output = '';
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'node_modules/uvu/bin.js'), 'test', pattern], {
    cwd: root,
    env: { ...process.env, TEST_PG_URL: db.urlFor('postgres'), LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A test that hangs must fail the run, not stall it: no output for this long ends it.
  const quietLimitMs = Number(process.env.TEST_QUIET_LIMIT_MS ?? 240_000);
  let watchdog = setTimeout(stall, quietLimitMs);
  function stall() {
    process.stdout.write(`\nno test output for ${quietLimitMs / 1000} s: stopping the run\n`);
    output += '\nSTALLED\n';
    child.kill('SIGKILL');
  }
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
    clearTimeout(watchdog);
    watchdog = setTimeout(stall, quietLimitMs);
  });
  child.on('close', (status) => {
    clearTimeout(watchdog);
    resolve(status ?? 1);
  });
});
await db.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

// uvu colours some counts (a non-zero "Skipped"): read the summary without its escape codes.
output = output.replace(/\x1b\[[0-9;]*m/g, '');
const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? 0);
const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? 0);
const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
// uvu's Total counts the tests that ran (skipped ones are apart), so every one not passed failed; its FAIL
// lines are counted too, since its exit code alone has been seen to be 0 after a failure.
const failLines = (output.match(/^\s*FAIL\s/gm) ?? []).length;
const failed = Math.max(total - passed, failLines, code === 0 ? 0 : 1);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
