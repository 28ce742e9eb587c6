// A job's transitions as the engine records them: lock the row, decide from it, append, update the row,
// all in one transaction. A transition of a job the worker no longer holds changes nothing.
import { withTransaction, type Queryable } from '../../db/pool.ts';
import type { EventMetadata, Position } from '../../eventstore/port.ts';
import type { Services } from '../../services.ts';
import { decideFail, decideProgress, decideRelease } from '../../../commands/job/decide.ts';
import { jobStream, type JobEvent, type JobState } from '../../../commands/job/job.ts';
import { announceAtCommit, appendInTransaction } from './append.ts';
import { lockExpired, lockHeld, progressHeld, removeJob, requeueJob, stateOf, type Held, type QueueRow } from './queue-sql.ts';

type Decide = (state: JobState) => { events: JobEvent[] };

/** Append the decided events after the row's revision (the row as it was before this transition). */
export async function appendDecision(services: Services, tx: Queryable, row: QueueRow, decide: Decide, metadata: EventMetadata): Promise<{ event: JobEvent; position: Position }> {
  const { events } = decide(stateOf(row));
  const appended = await appendInTransaction(services.store, tx, {
    stream: jobStream(row.organization_id, row.number), events, expectedRevision: BigInt(row.revision),
  }, metadata);
  return { event: events[events.length - 1], position: appended.position };
}

/** Append the decided events, then bring the row in line with the outcome. */
export async function applyDecision(services: Services, tx: Queryable, row: QueueRow, decide: Decide, metadata: EventMetadata): Promise<{ event: JobEvent; position: Position }> {
  const { event, position } = await appendDecision(services, tx, row, decide, metadata);
  switch (event.type) {
    case 'JobSucceeded':
    case 'JobFailed':
    case 'JobCancelled':
      await removeJob(tx, row.organization_id, row.number);
      break;
    case 'JobRetryScheduled':
      await requeueJob(tx, row.organization_id, row.number, event.data.runAfter);
      break;
    case 'JobProgressed':
    case 'JobQueued':
    case 'JobStarted':
      break;
    default: {
      const _never: never = event;
    }
  }
  return { event, position };
}

async function onHeld(services: Services, held: Held, decide: Decide, metadata: EventMetadata, progressLeaseUntil?: Date): Promise<boolean> {
  return withTransaction(services.pool, async (tx) => {
    const row = await lockHeld(tx, held);
    if (!row) return false;
    if (progressLeaseUntil) {
      await progressHeld(tx, held, progressLeaseUntil);
    }
    await applyDecision(services, tx, row, decide, metadata);
    await announceAtCommit(services.store, tx);
    return true;
  });
}

const nowIso = (services: Services) => services.now().toISOString();

export function recordFailure(services: Services, held: Held, failure: { error: string; permanent: boolean }, metadata: EventMetadata): Promise<boolean> {
  const retryDelaysMs = services.config.jobs.retrySchedule;
  return onHeld(services, held, (s) => decideFail(s, { ...failure, retryDelaysMs, now: nowIso(services) }), metadata);
}

/** A stopping worker gives the job back, to run again at once (also after its last attempt). */
export function recordRelease(services: Services, held: Held, reason: string, metadata: EventMetadata): Promise<boolean> {
  return onHeld(services, held, (s) => decideRelease(s, { reason, now: nowIso(services), stopping: true }), metadata);
}

export function recordProgress(services: Services, held: Held, progress: { done: number; text: string }, leaseUntil: Date, metadata: EventMetadata): Promise<boolean> {
  return onHeld(services, held, (s) => decideProgress(s, { ...progress, now: nowIso(services) }), metadata, leaseUntil);
}

/** Jobs whose worker died: the attempt counts and they go back to the queue (or fail on the last one). */
export async function sweepExpiredLeases(services: Services, kinds: readonly string[], metadata: EventMetadata): Promise<number> {
  return withTransaction(services.pool, async (tx) => {
    const now = services.now();
    const rows = await lockExpired(tx, { kinds, now, limit: 100 });
    for (const row of rows) {
      const reason = `lease expired at ${row.lease_until?.toISOString()}: the worker stopped answering`;
      await applyDecision(services, tx, row, (s) => decideRelease(s, { reason, now: now.toISOString() }), { ...metadata, organizationId: row.organization_id });
    }
    if (rows.length) await announceAtCommit(services.store, tx);
    return rows.length;
  });
}
