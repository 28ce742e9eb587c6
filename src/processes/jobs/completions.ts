// Successes are written together (group commit): while one transaction records finished jobs, the next
// ones gather, so a busy worker writes many JobSucceeded events per transaction instead of one each.
import { withTransaction } from '../../db/pool.ts';
import type { EventMetadata } from '../../eventstore/port.ts';
import type { Services } from '../../services.ts';
import { decideSucceed } from '../../../commands/job/decide.ts';
import { announceAtCommit } from './append.ts';
import { takeHeld, type Held } from './queue-sql.ts';
import { appendDecision } from './transitions.ts';

interface Pending {
  held: Held;
  summary: string;
  metadata: EventMetadata;
  settle(held: boolean): void;
  fail(error: unknown): void;
}

const MAX_BATCH = 200;
/** Transactions writing successes at once. More than one measured no faster (npm run bench -- jobs). */
const WRITERS = 1;

export class Completions {
  private pending: Pending[] = [];
  private writers = 0;

  constructor(private readonly services: Services) {}

  /** Resolves true once recorded; false when the worker no longer held the job (cancelled or taken back). */
  succeed(held: Held, summary: string, metadata: EventMetadata): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.pending.push({ held, summary, metadata, settle, fail });
      if (this.writers < WRITERS) {
        this.writers += 1;
        void this.drain().finally(() => { this.writers -= 1; });
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        const recorded = await this.write(batch);
        for (const p of batch) p.settle(recorded.has(p));
      } catch (error) {
        for (const p of batch) p.fail(error);
      }
    }
  }

  private write(batch: Pending[]): Promise<Set<Pending>> {
    return withTransaction(this.services.pool, async (tx) => {
      const rows = await takeHeld(tx, batch.map((p) => p.held));
      const recorded = new Set<Pending>();
      const now = this.services.now().toISOString();
      for (const row of rows) {
        const p = batch.find((b) => b.held.organizationId === row.organization_id && b.held.number === row.number)!;
        await appendDecision(this.services, tx, row, (s) => decideSucceed(s, { summary: p.summary, now }), p.metadata);
        recorded.add(p);
      }
      if (rows.length) await announceAtCommit(this.services.store, tx);
      return recorded;
    });
  }
}
