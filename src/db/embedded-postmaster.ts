// A cluster's postmaster as its postmaster.pid tells it: whether it lives, and the fast shutdown of one left running
// by a process that died.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.ts';

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function postmasterPid(clusterDir: string): number | null {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  return fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : null;
}

export function postmasterAlive(clusterDir: string): boolean {
  const pid = postmasterPid(clusterDir);
  return pid !== null && isAlive(pid);
}

/** A fast shutdown of a running cluster that no process owns; done when its postmaster is gone. */
export async function stopOrphan(clusterDir: string): Promise<void> {
  const pid = postmasterPid(clusterDir);
  if (pid === null || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 60_000;
  while (isAlive(pid) && postmasterPid(clusterDir) === pid) {
    if (Date.now() > deadline) throw new ConfigError(`the embedded PostgreSQL left running under ${clusterDir} (pid ${pid}) did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
