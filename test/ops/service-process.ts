// The service as `npm start` runs it, in a child process: started until "service ready", stopped by a signal, and
// a platform that never answers for it to wait on. Shared by the shutdown tests.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export const root = path.join(import.meta.dirname, '..', '..');
const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
/** The start script's command after its GLIBC_TUNABLES prefix: node and its arguments, no process in between. */
const startArgs = scripts.start.slice(scripts.start.indexOf(' node ') + ' node '.length).split(' ');

export interface Started { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }

/**
 * The service as `npm start` runs it, once it has logged "service ready" (`onOutput` sees all it printed so far, as it
 * starts). `viaNpm`: under `npm start` itself, as a
 * container or a supervisor runs it, so a signal goes to npm, which relays it to its child.
 */
export async function start(env: NodeJS.ProcessEnv, ownGroup = false, viaNpm = false, onOutput: (text: string) => void = () => {}): Promise<Started> {
  const [command, args] = viaNpm ? ['npm', ['start']] : [process.execPath, startArgs];
  const child = spawn(command, args, { cwd: root, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup });
  let text = '';
  child.stdout!.on('data', (chunk) => { text += chunk; onOutput(text); });
  child.stderr!.on('data', (chunk) => { text += chunk; onOutput(text); });
  // 'close', not 'exit': the output's last lines may still be in the pipes when the process has exited.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = /"msg":"service ready","url":"([^"]+)"/.exec(text);
    if (ready) return { child, url: ready[1], output: () => text, exited };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The signal to the service's process alone, or (`group`) to its whole process group as Ctrl-C in a terminal sends it. */
export async function stopWith(started: Started, signal: NodeJS.Signals, group = false): Promise<number | null> {
  if (group) process.kill(-started.child.pid!, signal);
  else started.child.kill(signal);
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000));
  const code = await Promise.race([started.exited, timeout]);
  if (code === 'timeout') {
    started.child.kill('SIGKILL');
    throw new Error(`no exit within 60 s:\n${started.output()}`);
  }
  return code;
}

/** A platform that takes requests and never answers; tells when the first arrived, and keeps the paths asked for. */
export async function silentPlatform(): Promise<{ url: string; arrived: Promise<void>; asked: string[]; close(): void }> {
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((resolve) => { arrive = resolve; });
  const asked: string[] = [];
  const server = http.createServer((req) => { asked.push(req.url ?? ''); req.resume(); arrive(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived, asked, close: () => { server.closeAllConnections(); server.close(); } };
}
