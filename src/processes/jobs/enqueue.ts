// Queueing and cancelling jobs: the work-table row and the job's events commit in one transaction.
import pRetry from 'p-retry';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { WrongExpectedVersionError, type EventMetadata, type Position } from '../../eventstore/port.ts';
import { handleCommand } from '../../eventstore/handle.ts';
import type { Services } from '../../services.ts';
import { decideCancel, decideQueue } from '../../../commands/job/decide.ts';
import { initialJobState, jobAggregate, jobCounterStream, jobStream, priorityFor, type JobEvent, type JobTrigger } from '../../../commands/job/job.ts';
import { labelFor } from '../../../commands/job/kinds.ts';
import { ApiError } from '../../../commands/shared/errors.ts';
import { announceAtCommit, appendInTransaction, lastRevisionIn } from './append.ts';
import { findActive, insertQueued, lockJob, removeJob, stateOf, type QueuedRow } from './queue-sql.ts';

export const JOBS_CHANNEL = 'job_queue';
/** A job's name within a worker (its running jobs) and in a cancellation's notice. */
export const jobKey = (organizationId: string, number: number) => `${organizationId}/${number}`;
const CANCEL = 'cancel ';
/** The payload on JOBS_CHANNEL that tells workers a job was cancelled (an enqueue's payload is the organisation id). */
export const cancelNotice = (organizationId: string, number: number) => CANCEL + jobKey(organizationId, number);
/** The key of the job a notice on JOBS_CHANNEL cancels; null for any other notice. */
export const cancelledJobKey = (payload: unknown): string | null =>
  (typeof payload === 'string' && payload.startsWith(CANCEL) ? payload.slice(CANCEL.length) : null);
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

interface Planned {
  input: EnqueueInput;
  number: number;
  events: JobEvent[];
  row: QueuedRow;
}

/** Numbers after the counter's last revision, and each job's JobQueued event and work-table row. */
function plan(services: Services, organizationId: string, inputs: EnqueueInput[], last: bigint | null): Planned[] {
  const now = services.now().toISOString();
  // The counter's revision is the number minus one (revisions start at 0, numbers at 1).
  const first = last === null ? 1 : Number(last) + 2;
  return inputs.map((input, i) => {
    const { kind, scope, trigger } = input;
    const number = first + i;
    const params = input.params ?? {};
    const runAfter = input.runAfter ?? now;
    const maxAttempts = input.maxAttempts ?? services.config.jobs.maxAttempts;
    const { events } = decideQueue(initialJobState(), {
      organizationId, number, kind, scope, trigger, params, maxAttempts, runAfter, now, label: input.label ?? labelFor(kind, scope, params),
    });
    const row: QueuedRow = { organizationId, number, kind, scope, trigger, priority: PRIORITY_RANK[priorityFor(trigger)], params, maxAttempts, runAfter, queuedAt: now };
    return { input, number, events, row };
  });
}

/**
 * Queue jobs of one organisation inside the caller's transaction. Enqueues of an organisation take turns
 * (an advisory lock), so the duplicate check holds and the counter's exact expected revision rarely
 * conflicts; a batch takes its numbers with one counter append and inserts its rows in one statement.
 */
export async function enqueueManyWithin(services: Services, tx: Queryable, organizationId: string, inputs: EnqueueInput[], metadata: EventMetadata): Promise<Enqueued[]> {
  for (const i of inputs) {
    if (!i.kind || !i.scope || i.organizationId !== organizationId) throw new ApiError('validation_error', undefined, 'a job needs a kind, a scope and this organisation');
  }
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENQUEUE_LOCK, organizationId]);
  const active = await findActive(tx, organizationId, inputs);
  const key = (i: { kind: string; scope: string }) => `${i.kind}\u0000${i.scope}`;
  const fresh = inputs.filter((i, at) => !active.has(key(i)) && inputs.findIndex((o) => key(o) === key(i)) === at);
  const counter = jobCounterStream(organizationId);
  const last = fresh.length ? await lastRevisionIn(services.store, tx, counter) : null;
  const planned = plan(services, organizationId, fresh, last);
  const positions = new Map<string, Position>();
  if (planned.length) {
    await appendInTransaction(services.store, tx, {
      stream: counter,
      events: planned.map((p) => ({ type: 'JobNumberAssigned', data: { organizationId, number: p.number, kind: p.input.kind, scope: p.input.scope } })),
      expectedRevision: last ?? 'no_stream',
    }, metadata);
    for (const p of planned) {
      const appended = await appendInTransaction(services.store, tx, { stream: jobStream(organizationId, p.number), events: p.events, expectedRevision: 'no_stream' }, metadata);
      positions.set(key(p.input), appended.position);
      active.set(key(p.input), p.number);
    }
    await insertQueued(tx, planned.map((p) => p.row));
    await announceAtCommit(services.store, tx, { channel: JOBS_CHANNEL, payload: organizationId });
  }
  return inputs.map((i) => ({ number: active.get(key(i))!, created: fresh.includes(i), position: fresh.includes(i) ? positions.get(key(i))! : null }));
}

/** One job inside the caller's transaction (the scheduler queues its runs this way). */
export async function enqueueWithin(services: Services, tx: Queryable, input: EnqueueInput, metadata: EventMetadata): Promise<Enqueued> {
  const [queued] = await enqueueManyWithin(services, tx, input.organizationId, [input], metadata);
  return queued;
}

const isRetryable = (error: unknown) =>
  error instanceof WrongExpectedVersionError || (error as { code?: string }).code === '23505' || (error as { code?: string }).code === '40P01';

/** Queue jobs of one organisation in a transaction of their own, retrying a lost race for the numbers. */
export function enqueueJobs(services: Services, organizationId: string, inputs: EnqueueInput[], metadata: EventMetadata): Promise<Enqueued[]> {
  return pRetry(() => withTransaction(services.pool, (tx) => enqueueManyWithin(services, tx, organizationId, inputs, metadata)), {
    retries: 5, minTimeout: 5, maxTimeout: 50, randomize: true,
    shouldRetry: ({ error }) => isRetryable(error),
  });
}

/** Queue one job; when the same kind and scope is queued or running, its number comes back instead. */
export async function enqueueJob(services: Services, input: EnqueueInput, metadata: EventMetadata): Promise<Enqueued> {
  const [queued] = await enqueueJobs(services, input.organizationId, [input], metadata);
  return queued;
}

/** Cancel a queued or running job; a running one is told at once (NOTIFY), its worker aborting the handler. */
export async function cancelJob(services: Services, organizationId: string, number: number, metadata: EventMetadata): Promise<Position> {
  const now = services.now().toISOString();
  const cancelled = await withTransaction(services.pool, async (tx) => {
    const row = await lockJob(tx, organizationId, number);
    if (!row) return null;
    const { events } = decideCancel(stateOf(row), { number, now });
    const appended = await appendInTransaction(services.store, tx, { stream: jobStream(organizationId, number), events, expectedRevision: BigInt(row.revision) }, metadata);
    await removeJob(tx, organizationId, number);
    // The worker running it, in whichever process, checks at once instead of at its next lease extension (a third of JOB_LEASE).
    await announceAtCommit(services.store, tx, { channel: JOBS_CHANNEL, payload: cancelNotice(organizationId, number) });
    return appended.position;
  });
  if (cancelled) return cancelled;
  // Not in the work table: the stream says whether it never existed (404), has finished (409), or lost
  // its row (an EventStoreDB append whose row write did not follow), which the cancellation closes.
  const handled = await handleCommand(services.store, jobStream(organizationId, number), jobAggregate, (state) => decideCancel(state, { number, now }), metadata);
  return handled.append!.position;
}
