// CPU time from /proc, for benches that divide it by the requests they made: this process's main thread,
// its other threads (a load generator in a worker thread, GC helpers), and a PostgreSQL cluster's processes.
// User and system time apart: a socket's work in the kernel is system time of the thread that asks for it.
import fs from 'node:fs';
import path from 'node:path';

/** Clock ticks (1/100 s here). */
export interface Ticks { user: number; sys: number }

const ZERO: Ticks = { user: 0, sys: 0 };
const add = (a: Ticks, b: Ticks): Ticks => ({ user: a.user + b.user, sys: a.sys + b.sys });
export function minus(a: Ticks, b: Ticks): Ticks { return { user: a.user - b.user, sys: a.sys - b.sys }; }

function statOf(statPath: string): { ppid: number; ticks: Ticks } | null {
  try {
    const s = fs.readFileSync(statPath, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: { user: Number(f[11]), sys: Number(f[12]) } };
  } catch { return null; }
}

/** The postmaster's pid, from the cluster's data directory (BENCH_DATA_DIR/pg). */
export function postmasterOf(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** The processes whose parent is this one (a postmaster's backends and background workers). */
export function childrenOf(parent: number): number[] {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && statOf(`/proc/${p}/stat`)?.ppid === parent).map(Number);
}

/** The postmaster and all its children. */
export function pgTicks(postmaster: number): Ticks {
  let n = statOf(`/proc/${postmaster}/stat`)?.ticks ?? ZERO;
  for (const p of childrenOf(postmaster)) n = add(n, statOf(`/proc/${p}/stat`)?.ticks ?? ZERO);
  return n;
}

/** The main thread, and the rest of the process: its other threads, those that ended too (a finished load generator's). */
export function threadTicks(): { main: Ticks; other: Ticks } {
  const main = statOf(`/proc/self/task/${process.pid}/stat`)?.ticks ?? ZERO;
  const all = statOf('/proc/self/stat')?.ticks ?? ZERO;
  return { main, other: minus(all, main) };
}
