// One claimed job on its worker: the handler runs under a lease the worker keeps extending; progress is
// throttled; the outcome (done, retry, failed) is recorded unless the worker lost the job meanwhile.
import type { EventMetadata } from '../../eventstore/port.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import { JobError, type JobContext, type JobHandler } from './handler.ts';
import { extendLease, type Held, type QueueRow } from './queue-sql.ts';
import { recordFailure, recordProgress, recordRelease } from './transitions.ts';

export interface RunOptions {
  /** Records a success (batched with other jobs' by the engine); false when the job was no longer held. */
  succeed(held: Held, summary: string, metadata: EventMetadata): Promise<boolean>;
  leaseMs: number;
  progressEveryMs: number;
  /** True once the engine is stopping: an interrupted job is released, not failed. */
  stopping(): boolean;
}

export class JobRun {
  readonly controller = new AbortController();
  readonly held: Held;
  readonly metadata: EventMetadata;
  private lost = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private latest: { done: number; text: string } | null = null;
  private flushed: { done: number; text: string } | null = null;
  private lastFlushAt = 0;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly services: Services,
    private readonly row: QueueRow,
    private readonly handler: JobHandler,
    private readonly options: RunOptions,
    private readonly log: Logger,
    workerId: string,
  ) {
    this.held = { organizationId: row.organization_id, number: row.number, workerId, attempt: row.attempts };
    this.metadata = { organizationId: row.organization_id, actor: 'worker:jobs', correlationId: `job-${row.organization_id}-${row.number}` };
  }

  private leaseUntil(): Date {
    return new Date(this.services.now().getTime() + this.options.leaseMs);
  }

  /** The worker no longer holds the job (cancelled, or its lease was taken back): stop the handler. */
  private loseJob(): void {
    this.lost = true;
    this.controller.abort(new JobError('the job was cancelled or taken back'));
  }

  async run(): Promise<void> {
    this.heartbeat = setInterval(() => void this.beat(), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    try {
      const result = await this.handler(this.context());
      await this.flushProgress(true);
      if (!this.lost && !(await this.options.succeed(this.held, result.summary, this.metadata))) this.log.warn('job finished after losing its lease');
    } catch (error) {
      await this.settleFailure(error);
    } finally {
      if (this.heartbeat) clearInterval(this.heartbeat);
    }
  }

  private async settleFailure(error: unknown): Promise<void> {
    if (this.lost) return;
    if (this.controller.signal.aborted && this.options.stopping()) {
      await recordRelease(this.services, this.held, 'interrupted: the worker stopped', this.metadata);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof JobError && error.permanent;
    if (!(error instanceof JobError)) this.log.warn('job failed', { error });
    await recordFailure(this.services, this.held, { error: message.slice(0, 2000), permanent }, this.metadata);
  }

  /** Whether the worker still holds the job, asked now (a cancellation's notice): the handler is aborted when not. */
  checkHeld(): Promise<void> {
    return this.beat();
  }

  private async beat(): Promise<void> {
    if (this.lost) return;
    try {
      if (!(await extendLease(this.services.pool, this.held, this.leaseUntil()))) this.loseJob();
    } catch (error) {
      this.log.warn('lease extension failed', { error });
    }
  }

  private context(): JobContext {
    const { row, services } = this;
    return {
      services,
      organizationId: row.organization_id,
      number: row.number,
      kind: row.kind,
      scope: row.scope,
      trigger: row.trigger,
      params: row.params,
      attempt: row.attempts,
      signal: this.controller.signal,
      metadata: this.metadata,
      log: this.log,
      progress: (done, text) => {
        this.latest = { done, text };
        void this.flushProgress(false);
      },
    };
  }

  /** Throttled: writes now when the last write is old enough, or (final) whatever is still unwritten. */
  private async flushProgress(final: boolean): Promise<void> {
    if (final && this.flushing) await this.flushing;
    const latest = this.latest;
    if (!latest || this.lost || this.flushing) return;
    if (this.flushed && this.flushed.done === latest.done && this.flushed.text === latest.text) return;
    if (!final && Date.now() - this.lastFlushAt < this.options.progressEveryMs) return;
    this.lastFlushAt = Date.now();
    this.flushing = recordProgress(this.services, this.held, latest, this.leaseUntil(), this.metadata)
      .then((held) => {
        this.flushed = latest;
        if (!held) this.loseJob();
      })
      .catch((error) => this.log.warn('progress not recorded', { error }))
      .finally(() => { this.flushing = null; });
    await this.flushing;
  }

  /** Ask the handler to stop (the engine is stopping). */
  interrupt(): void {
    this.controller.abort(new JobError('interrupted: the worker stopped'));
  }
}
