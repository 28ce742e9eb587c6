// Where each subscription's next claim may start scanning the queue, as one sender process knows it.
//
// A sent push's row is deleted, but its index entry stays and every scan from a subscription's oldest row visits
// it until PostgreSQL can vacuum it, which it cannot while any older transaction runs (an import's appends, say).
// Under load that walk became the dearest part of a claim. So each claim starts at the latest due time this
// process has claimed for the subscription: every row due before it was then sent (gone), held by a claim (it
// goes, or a retry makes it due later) or not yet committed (the fan-out inserts at its own transaction's time,
// one transaction after another, so new rows come later). Only a row whose worker died waits there for its lease
// to expire; a claim from the oldest rows every `fullScanMs` takes it then.
import type { QueuedPush, StartAt } from './queue-sql.ts';

export class ClaimStarts {
  private readonly starts = new Map<string, StartAt>();
  private lastFullScan = -Infinity;

  constructor(private readonly fullScanMs: number) {}

  /** Start places for the next claim; none when a scan from the oldest rows is due. */
  next(nowMs: number): StartAt[] {
    if (nowMs - this.lastFullScan >= this.fullScanMs) {
      this.lastFullScan = nowMs;
      return [];
    }
    return [...this.starts.values()];
  }

  /** The latest due time claimed per subscription becomes its start; a start never moves back. */
  claimed(pushes: QueuedPush[]): void {
    for (const push of pushes) {
      const key = `${push.organization_id}/${push.webhook_id}`;
      // A millisecond earlier: the JavaScript time drops the microseconds of PostgreSQL's (and may round up).
      const dueAt = new Date(push.due_at.getTime() - 1);
      const current = this.starts.get(key);
      if (!current || current.dueAt < dueAt) this.starts.set(key, { organizationId: push.organization_id, webhookId: push.webhook_id, dueAt });
    }
  }
}
