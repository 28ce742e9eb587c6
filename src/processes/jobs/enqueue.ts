// Queueing and cancelling jobs: the work-table row and the job's events commit in one transaction.
import pRetry from 'p-retry';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { WrongExpectedVersionError, type EventMetadata, type Position } from '../../eventstore/port.ts';
import { loadAggregate } from '../../eventstore/handle.ts';
import type { Services } from '../../services.ts';
import { decideCancel, decideQueue } from '../../../commands/job/decide.ts';
import { initialJobState, jobAggregate, jobCounterStream, jobStream, priorityFor, type JobTrigger } from '../../../commands/job/job.ts';
import { labelFor } from '../../../commands/job/kinds.ts';
import { ApiError } from '../../../commands/shared/errors.ts';
import { appendInTransaction, lastRevisionIn } from './append.ts';
import { findActive, insertQueued, lockJob, removeJob, stateOf } from './queue-sql.ts';

export const JOBS_CHANNEL = 'job_queue';
/** First key of the per-organisation enqueue lock (the second is the organisation's hash). */
const ENQUEUE_LOCK = 7_200_001;

export interface EnqueueInput {
  organizationId: string;
  kind: string;
  scope: string;
  trigger: JobTrigger;
  params?: Record<string, unknown>;
  /** Not before this time; default now. */
  runAfter?: string;
  maxAttempts?: number;
  label?: string;
}

export interface Enqueued {
  number: number;
  /** False when the same kind and scope was already queued or running: its number is returned. */
  created: boolean;
  /** Where the JobQueued event landed (read-your-writes); null when nothing was appended. */
  position: Position | null;
}

export const PRIORITY_RANK = { user: 0, background: 1 } as const;

/**
 * Queue a job inside the caller's transaction. Enqueues of one organisation take turns (an advisory
 * lock), so the duplicate check holds and the counter stream's exact expected revision rarely conflicts.
 */
export async function enqueueWithin(services: Services, tx: Queryable, input: EnqueueInput, metadata: EventMetadata): Promise<Enqueued> {
  const { organizationId, kind, scope, trigger } = input;
  if (!kind || !scope) throw new ApiError('validation_error', undefined, 'a job needs a kind and a scope');
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENQUEUE_LOCK, organizationId]);
  const existing = await findActive(tx, organizationId, kind, scope);
  if (existing !== null) return { number: existing, created: false, position: null };

  const counter = jobCounterStream(organizationId);
  const last = await lastRevisionIn(services.store, tx, counter);
  // The counter's revision is the number minus one (revisions start at 0, numbers at 1).
  const number = last === null ? 1 : Number(last) + 2;
  const now = services.now().toISOString();
  const params = input.params ?? {};
  const runAfter = input.runAfter ?? now;
  const maxAttempts = input.maxAttempts ?? services.config.jobs.maxAttempts;
  const { events } = decideQueue(initialJobState(), {
    organizationId, number, kind, scope, trigger, params, maxAttempts, runAfter, now,
    label: input.label ?? labelFor(kind, scope, params),
  });
  await appendInTransaction(services.store, tx, {
    stream: counter,
    events: [{ type: 'JobNumberAssigned', data: { organizationId, number, kind, scope } }],
    expectedRevision: last ?? 'no_stream',
  }, metadata);
  const appended = await appendInTransaction(services.store, tx, { stream: jobStream(organizationId, number), events, expectedRevision: 'no_stream' }, metadata);
  await insertQueued(tx, {
    organizationId, number, kind, scope, trigger, priority: PRIORITY_RANK[priorityFor(trigger)],
    params, maxAttempts, runAfter, queuedAt: now,
  });
  await tx.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, kind]);
  return { number, created: true, position: appended.position };
}

const isRetryable = (error: unknown) =>
  error instanceof WrongExpectedVersionError || (error as { code?: string }).code === '23505' || (error as { code?: string }).code === '40P01';

/** Queue a job in a transaction of its own, retrying a lost race for the number. */
export function enqueueJob(services: Services, input: EnqueueInput, metadata: EventMetadata): Promise<Enqueued> {
  return pRetry(() => withTransaction(services.pool, (tx) => enqueueWithin(services, tx, input, metadata)), {
    retries: 5, minTimeout: 5, maxTimeout: 50, randomize: true,
    shouldRetry: ({ error }) => isRetryable(error),
  });
}

/** Cancel a queued or running job; a running one stops at its worker's next lease check. */
export async function cancelJob(services: Services, organizationId: string, number: number, metadata: EventMetadata): Promise<Position> {
  const now = services.now().toISOString();
  const cancelled = await withTransaction(services.pool, async (tx) => {
    const row = await lockJob(tx, organizationId, number);
    if (!row) return null;
    const { events } = decideCancel(stateOf(row), { number, now });
    const appended = await appendInTransaction(services.store, tx, { stream: jobStream(organizationId, number), events, expectedRevision: BigInt(row.revision) }, metadata);
    await removeJob(tx, organizationId, number);
    return appended.position;
  });
  if (cancelled) return cancelled;
  // Not in the work table: the stream says whether it never existed (404) or has finished (409).
  const { state } = await loadAggregate(services.store, jobStream(organizationId, number), jobAggregate);
  decideCancel(state, { number, now });
  throw new ApiError('conflict', { number }, 'the job has finished');
}
