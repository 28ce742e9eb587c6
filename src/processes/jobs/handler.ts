// What a job kind implements: run(ctx) -> summary. Throw JobError(permanent) when retrying cannot help.
import type { EventMetadata } from '../../eventstore/port.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import type { JobTrigger } from '../../../commands/job/job.ts';

export interface JobContext {
  services: Services;
  organizationId: string;
  number: number;
  kind: string;
  scope: string;
  trigger: JobTrigger;
  params: Record<string, unknown>;
  /** 1 on the first attempt. */
  attempt: number;
  /** Aborted when the job is cancelled, its lease is lost, or the worker stops. */
  signal: AbortSignal;
  /** Metadata for the events the job appends (actor worker:jobs, correlation job-<org>-<number>). */
  metadata: EventMetadata;
  log: Logger;
  /** Throttled: at most one JobProgressed per JOB_PROGRESS_EVERY; the latest value is never lost. */
  progress(done: number, text: string): void;
}

export interface JobResult {
  summary: string;
}

export type JobHandler = (ctx: JobContext) => Promise<JobResult>;

export class JobError extends Error {
  constructor(
    message: string,
    /** True when the same run would fail again: the job fails at once, without retries. */
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'JobError';
  }
}

/** Stop a job between steps when its signal says so. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new JobError('interrupted', false);
}
