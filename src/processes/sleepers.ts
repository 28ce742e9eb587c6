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
