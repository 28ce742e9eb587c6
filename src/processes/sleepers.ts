// The idle loops of a sender (deliveries, webhooks): each sleeps until its next poll, or until work wakes it.
export class Sleepers {
  private readonly waiting = new Set<() => void>();

  /** Resolves after `ms`, or sooner when woken. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => { clearTimeout(timer); this.waiting.delete(wake); resolve(); };
      const timer = setTimeout(wake, ms);
      this.waiting.add(wake);
    });
  }

  /** Wakes the longest sleeping loop, if any. */
  wakeOne(): void {
    const [wake] = this.waiting;
    wake?.();
  }

  /** Wakes every sleeping loop (on stop). */
  wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }
}

/** The longest pause of a loop whose work keeps failing (the database is away, say). */
export const MAX_FAILURE_PAUSE_MS = 5000;

/**
 * How long an idle or failing loop waits: its usual pause, doubled for each failure in a row up to 5 s, so that an
 * outage costs a few log lines a second instead of every loop's full rate, and work resumes within 5 s of its end.
 */
export function pauseAfter(idleMs: number, failuresInARow: number): number {
  if (failuresInARow === 0) return idleMs;
  return Math.max(idleMs, Math.min(idleMs * 2 ** failuresInARow, MAX_FAILURE_PAUSE_MS));
}

/**
 * A stopping worker's wait for its in-flight work: `graceMs` at most, then `abort` ends the platform or webhook
 * calls still waiting for an answer (each records or leaves its work to be tried again), and the wait goes on
 * for the little that follows.
 */
export async function finishWithin(work: Promise<unknown>, graceMs: number, abort: AbortController): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), graceMs); });
  try {
    if (await Promise.race([work.then(() => 'done' as const), grace]) === 'late') abort.abort();
  } finally {
    clearTimeout(timer);
  }
  await work;
}
