// The SQL of the delivery work table: claim a dataset's due deliveries under a lease, then settle them.
import type { Queryable } from '../../db/pool.ts';
import type { QueuedPayload } from '../../../projections/delivery_queue/projector.ts';

export interface QueuedDelivery {
  id: string;
  organization_id: string;
  event_id: string;
  target_id: string;
  dataset_id: string;
  event_name: string;
  platform_event_id: string;
  test_event_code: string | null;
  event_time: Date;
  payload: QueuedPayload;
  /** Attempts started before this claim. */
  attempts: number;
}

/**
 * Claims up to `limit` due deliveries of one target (the one whose delivery is due longest, of those not in
 * `skipTargets`), so a batch goes to one dataset with one token. Rows another worker holds (row lock or
 * unexpired lease) are skipped. The attempt is counted in the same statement for every delivery whose event is
 * not older than `sendableAfter` (those are sent; the others are cancelled): it counts even if this worker
 * never learns how it ended. `attempts` comes back as it was before this claim.
 *
 * The targets are walked one by one on (target_id, due_at), not scanned in due order: a skipped target with a
 * long backlog would otherwise be read through, row by row, on every claim.
 */
export async function claimBatch(
  db: Queryable,
  claim: { token: string; now: Date; until: Date; limit: number; sendableAfter: Date; skipTargets: string[] },
): Promise<QueuedDelivery[]> {
  const { rows } = await db.query<QueuedDelivery>(
    `WITH RECURSIVE queued AS (
       (SELECT target_id FROM delivery_queue ORDER BY target_id LIMIT 1)
       UNION ALL
       SELECT (SELECT q.target_id FROM delivery_queue q WHERE q.target_id > queued.target_id ORDER BY q.target_id LIMIT 1)
       FROM queued WHERE queued.target_id IS NOT NULL
     ), pick AS (
       SELECT first.organization_id, first.target_id FROM queued CROSS JOIN LATERAL (
         SELECT q.organization_id, q.target_id, q.due_at FROM delivery_queue q
         WHERE q.target_id = queued.target_id AND q.due_at <= $1 AND (q.claimed_until IS NULL OR q.claimed_until < $1)
         ORDER BY q.due_at LIMIT 1 FOR UPDATE SKIP LOCKED
       ) first
       WHERE queued.target_id <> ALL($6::text[])
       ORDER BY first.due_at LIMIT 1
     ), batch AS (
       SELECT q.id, (q.event_time >= $5)::int AS counted FROM delivery_queue q
       WHERE q.target_id = (SELECT target_id FROM pick) AND q.organization_id = (SELECT organization_id FROM pick)
         AND q.due_at <= $1 AND (q.claimed_until IS NULL OR q.claimed_until < $1)
       ORDER BY q.due_at LIMIT $4 FOR UPDATE OF q SKIP LOCKED
     )
     UPDATE delivery_queue q SET claim_token = $2, claimed_until = $3, attempts = q.attempts + batch.counted
     FROM batch WHERE q.id = batch.id
     RETURNING q.id, q.organization_id, q.event_id, q.target_id, q.dataset_id, q.event_name, q.platform_event_id,
       q.test_event_code, q.event_time, q.payload, q.attempts - batch.counted AS attempts`,
    [claim.now, claim.token, claim.until, claim.limit, claim.sendableAfter, claim.skipTargets],
  );
  return rows;
}

export interface Settlement {
  done: string[];
  retries: { id: string; attempts: number; dueAt: string }[];
  /** Claimed but not sent (the lease ran short): due again at once. */
  released: string[];
}

/** Applies a claim's outcomes; only rows still held under this claim token change. */
export async function settleBatch(db: Queryable, organizationId: string, token: string, s: Settlement): Promise<void> {
  if (s.done.length) {
    await db.query('DELETE FROM delivery_queue WHERE organization_id = $1 AND claim_token = $2 AND id = ANY($3)', [organizationId, token, s.done]);
  }
  if (s.retries.length) {
    await db.query(
      `UPDATE delivery_queue q SET attempts = r.attempts, due_at = r.due, claimed_until = NULL, claim_token = NULL
       FROM unnest($3::text[], $4::int[], $5::timestamptz[]) AS r(id, attempts, due)
       WHERE q.organization_id = $1 AND q.claim_token = $2 AND q.id = r.id`,
      [organizationId, token, s.retries.map((r) => r.id), s.retries.map((r) => r.attempts), s.retries.map((r) => r.dueAt)],
    );
  }
  if (s.released.length) {
    await db.query(
      'UPDATE delivery_queue SET claimed_until = NULL, claim_token = NULL WHERE organization_id = $1 AND claim_token = $2 AND id = ANY($3)',
      [organizationId, token, s.released],
    );
  }
}

/** The organisations' deliveries still waiting, due or not, claimed or not. */
export async function queueDepth(db: Queryable, organizationIds: string[]): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM delivery_queue WHERE organization_id = ANY($1)', [organizationIds]);
  return Number(rows[0].n);
}

/** Whether any delivery of the organisations still waits: stops at the first row, unlike a count. */
export async function anyQueued(db: Queryable, organizationIds: string[]): Promise<boolean> {
  const { rows } = await db.query<{ queued: boolean }>('SELECT EXISTS (SELECT 1 FROM delivery_queue WHERE organization_id = ANY($1)) AS queued', [organizationIds]);
  return rows[0].queued;
}
