// `npm run sandbox` (ops/sandbox/main.ts) started with a SANDBOX_PORT it cannot use, or on a port in use: one line
// "cannot start: ..." naming the variable and exit code 1, as the service starts (README), never Node's stack trace.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('Sandbox start: a port it cannot use is one clear line and exit code 1');
const root = path.join(import.meta.dirname, '..', '..');

function runSandbox(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'ops/sandbox/main.ts'], {
    cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  // A sandbox that started (the bug) runs until stopped: stop it, its exit code then fails the test.
  const timer = setTimeout(() => child.kill('SIGTERM'), 15_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }); }));
}

function assertOneLine(result: { code: number | null; output: string }, expected: RegExp): void {
  assert.is(result.code, 1, result.output);
  const lines = result.output.trim().split('\n');
  assert.is(lines.length, 1, result.output);
  assert.match(lines[0], /^cannot start: /);
  assert.match(lines[0], expected);
}

test('a SANDBOX_PORT that is not a port number is named', async () => {
  for (const port of ['abc', '0x10', '1e3', '65536', '-1', '']) {
    assertOneLine(await runSandbox({ SANDBOX_PORT: port }), /SANDBOX_PORT=".*" is not valid: expected a whole number from 0 to 65535/);
  }
});

test('a port in use is named, with the variable that chose it', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as net.AddressInfo;
  try {
    assertOneLine(await runSandbox({ SANDBOX_PORT: String(port) }), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use \\(SANDBOX_PORT\\)`));
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test('a free port starts it and prints the URL', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'ops/sandbox/main.ts'], { cwd: root, env: { ...process.env, SANDBOX_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk))));
  assert.match(first, /^sandbox platform listening on http:\/\/127\.0\.0\.1:\d+/);
  const code = await new Promise<number | null>((resolve) => { child.on('close', resolve); child.kill('SIGTERM'); });
  assert.is(code, 0);
});

test('npm run sandbox stops when npm is sent SIGTERM, as a supervisor stops it', async () => {
  // Without `exec` in the script, the shell npm starts kept the sandbox from the signal: npm waited on it for ever.
  const npm = spawn('npm', ['run', '-s', 'sandbox'], { cwd: root, env: { ...process.env, SANDBOX_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = await new Promise<string>((resolve) => npm.stdout.once('data', (chunk) => resolve(String(chunk))));
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(first)?.[0];
  assert.ok(url, first);
  const stopped = new Promise<number | null>((resolve) => npm.on('close', resolve));
  npm.kill('SIGTERM');
  const timeout = setTimeout(() => npm.kill('SIGKILL'), 15_000);
  assert.is(await stopped, 0, 'npm ended with the sandbox, not killed after 15 s');
  clearTimeout(timeout);
  const answer = await fetch(`${url}/v20.0/me`).then(() => 'still serving', (error: { cause?: { code?: string } }) => error.cause?.code);
  assert.is(answer, 'ECONNREFUSED');
});

test.run();
