// The SQL of the webhook work tables: claim due pushes under a lease, settle them, count failures in a row.
import type { Queryable } from '../../db/pool.ts';

export interface QueuedPush {
  id: string;
  organization_id: string;
  webhook_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: string;
  /** Attempts recorded before this claim. */
  attempts: number;
  url: string;
  secret_ciphertext: string;
  resumes: number;
  due_at: Date;
}

/** A subscription's claims may start at this due time: every row due before it was sent or is held. */
export interface StartAt {
  organizationId: string;
  webhookId: string;
  dueAt: Date;
}

export interface Claim {
  token: string;
  now: Date;
  until: Date;
  limit: number;
  /** Failed attempts in a row that pause a subscription: such a subscription gets nothing more. */
  pauseAfter: number;
  /** Pushes of one subscription in one claim at most. */
  perSubscription: number;
  /** Where each subscription's scan may start (a subscription not named: from its oldest row). */
  startAt: StartAt[];
  /** Subscriptions (ids) this claim leaves out: their receivers are still answering an earlier batch. */
  skip?: string[];
}

/**
 * The one statement that spans organisations: a shared pool of workers serves them all; every join and
 * every later statement is keyed by organisation.
 * Due pushes of active subscriptions below the failure count, with the subscription's current URL and
 * secret (so a rotated secret signs what is still queued): at most `perSubscription` of each, oldest first,
 * so a subscription with a long backlog cannot hold back the others, and no more than the failures it has left
 * before the pause, so a receiver failing them all is paused at the count rather than a whole batch past it
 * (claims running side by side, in other loops or processes, can still each take that many). Rows another
 * worker holds (lock or unexpired lease) are skipped. A start place skips the index entries of pushes sent and
 * deleted but not yet vacuumable, which every scan from the oldest row would otherwise visit one by one.
 * The candidates are read without locks and only the rows taken are locked (SKIP LOCKED). Locked per
 * subscription, the up to `perSubscription` x subscriptions rows beyond `limit` stayed locked to the end of the
 * statement untaken; a claim running beside it skipped them, took later rows and moved its start past them, so
 * they waited for the next scan from the oldest rows (`fullScanMs`, 5 s): the tail of every drain.
 */
export async function claimPushes(db: Queryable, claim: Claim): Promise<QueuedPush[]> {
  const { rows } = await db.query<QueuedPush>(
    `WITH eligible AS MATERIALIZED (
       SELECT s.organization_id, s.id, $5 - COALESCE(h.consecutive, 0) AS failures_left FROM webhook_subscriptions s
       LEFT JOIN webhook_health h ON h.organization_id = s.organization_id AND h.webhook_id = s.id AND h.resumes = s.resumes
       WHERE s.active AND COALESCE(h.consecutive, 0) < $5 AND NOT (s.id = ANY($10::text[]))
     ), candidates AS (
       SELECT pick.id FROM eligible e
       LEFT JOIN unnest($7::text[], $8::text[], $9::timestamptz[]) AS start(organization_id, webhook_id, due_at)
         ON start.organization_id = e.organization_id AND start.webhook_id = e.id
       CROSS JOIN LATERAL (
         SELECT q.id FROM webhook_queue q
         WHERE q.organization_id = e.organization_id AND q.webhook_id = e.id AND q.due_at <= $1 AND (q.claimed_until IS NULL OR q.claimed_until < $1)
           AND q.due_at >= COALESCE(start.due_at, '-infinity')
         ORDER BY q.due_at, q.seq LIMIT LEAST($6, e.failures_left)
       ) pick
     ), batch AS (
       SELECT q.id FROM webhook_queue q
       WHERE q.id = ANY(ARRAY(SELECT id FROM candidates)) AND (q.claimed_until IS NULL OR q.claimed_until < $1)
       ORDER BY q.due_at, q.seq LIMIT $4 FOR UPDATE SKIP LOCKED
     )
     UPDATE webhook_queue q SET claim_token = $2, claimed_until = $3
     FROM webhook_subscriptions s
     -- An array, not a join: joined, the planner scans the whole queue (dead rows included) for 100 ids.
     WHERE q.id = ANY(ARRAY(SELECT id FROM batch)) AND s.organization_id = q.organization_id AND s.id = q.webhook_id
     RETURNING q.id, q.organization_id, q.webhook_id, q.event_type, q.payload, q.created_at, q.attempts, s.url, s.secret_ciphertext, s.resumes, q.due_at`,
    [claim.now, claim.token, claim.until, claim.limit, claim.pauseAfter, claim.perSubscription,
      claim.startAt.map((a) => a.organizationId), claim.startAt.map((a) => a.webhookId), claim.startAt.map((a) => a.dueAt), claim.skip ?? []],
  );
  return rows;
}

export interface Settlement {
  done: { id: string; organizationId: string }[];
  retries: { id: string; organizationId: string; attempts: number; dueAt: Date }[];
  /** Claimed but not attempted (a stop cut the push short): free to be claimed again at once. */
  released: { id: string; organizationId: string }[];
}

/** Applies a claim's outcomes; only rows still held under this claim token change (a deleted one stays gone). */
export async function settlePushes(db: Queryable, token: string, s: Settlement): Promise<void> {
  if (s.done.length) {
    await db.query(
      `DELETE FROM webhook_queue q USING unnest($2::text[], $3::text[]) AS r(id, organization_id)
       WHERE q.claim_token = $1 AND q.id = r.id AND q.organization_id = r.organization_id`,
      [token, s.done.map((d) => d.id), s.done.map((d) => d.organizationId)],
    );
  }
  if (s.retries.length) {
    await db.query(
      `UPDATE webhook_queue q SET attempts = r.attempts, due_at = r.due, claimed_until = NULL, claim_token = NULL
       FROM unnest($2::text[], $3::text[], $4::int[], $5::timestamptz[]) AS r(id, organization_id, attempts, due)
       WHERE q.claim_token = $1 AND q.id = r.id AND q.organization_id = r.organization_id`,
      [token, s.retries.map((r) => r.id), s.retries.map((r) => r.organizationId), s.retries.map((r) => r.attempts), s.retries.map((r) => r.dueAt)],
    );
  }
  if (s.released.length) {
    await db.query(
      `UPDATE webhook_queue q SET claimed_until = NULL, claim_token = NULL
       FROM unnest($2::text[], $3::text[]) AS r(id, organization_id)
       WHERE q.claim_token = $1 AND q.id = r.id AND q.organization_id = r.organization_id`,
      [token, s.released.map((r) => r.id), s.released.map((r) => r.organizationId)],
    );
  }
}

export interface HealthChange {
  organizationId: string;
  webhookId: string;
  /** Failures after the last success of this batch (all of them when there was none). */
  failures: number;
  /** The batch had a success: the count restarts. */
  reset: boolean;
  resumes: number;
}

export interface Health {
  organization_id: string;
  webhook_id: string;
  consecutive: number;
  /** The run of failures counted: the subscription's resumes when they were. */
  resumes: number;
}

/** Failed attempts in a row per subscription; a resume (a new `resumes` value) restarts the count. */
export async function recordHealth(db: Queryable, changes: HealthChange[]): Promise<Health[]> {
  // All went through: a count already at 0 is left alone, so the busy path takes no row lock at all.
  const healthy = changes.filter((c) => c.failures === 0);
  if (healthy.length) {
    await db.query(
      `UPDATE webhook_health h SET consecutive = 0 FROM unnest($1::text[], $2::text[]) AS i(organization_id, webhook_id)
       WHERE h.organization_id = i.organization_id AND h.webhook_id = i.webhook_id AND h.consecutive <> 0`,
      [healthy.map((c) => c.organizationId), healthy.map((c) => c.webhookId)],
    );
  }
  return countFailures(db, changes.filter((c) => c.failures > 0));
}

async function countFailures(db: Queryable, changes: HealthChange[]): Promise<Health[]> {
  if (changes.length === 0) return [];
  const { rows } = await db.query<Health>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bool[], $5::int[]) AS i(organization_id, webhook_id, failures, reset, resumes)
     ), counted AS (
       INSERT INTO webhook_health AS h (organization_id, webhook_id, consecutive, resumes)
       SELECT organization_id, webhook_id, failures, resumes FROM input
       ON CONFLICT (organization_id, webhook_id) DO UPDATE SET
         consecutive = CASE
           WHEN h.resumes <> EXCLUDED.resumes
             OR (SELECT i.reset FROM input i WHERE i.organization_id = EXCLUDED.organization_id AND i.webhook_id = EXCLUDED.webhook_id)
           THEN EXCLUDED.consecutive ELSE h.consecutive + EXCLUDED.consecutive END,
         resumes = EXCLUDED.resumes
       RETURNING h.organization_id, h.webhook_id, h.consecutive, h.resumes
     )
     -- Only a count of the subscription's current run pauses it (as in pausesDue): attempts claimed before a
     -- resume and recorded after it (in flight when it came) count in the run the resume ended.
     SELECT c.organization_id, c.webhook_id, c.consecutive, c.resumes FROM counted c
     JOIN webhook_subscriptions s ON s.organization_id = c.organization_id AND s.id = c.webhook_id AND s.resumes = c.resumes`,
    [changes.map((c) => c.organizationId), changes.map((c) => c.webhookId), changes.map((c) => c.failures), changes.map((c) => c.reset), changes.map((c) => c.resumes)],
  );
  return rows;
}

/** Active subscriptions whose count reached the limit: their pause is due (again, if a worker died before it). */
export async function pausesDue(db: Queryable, pauseAfter: number): Promise<Health[]> {
  const { rows } = await db.query<Health>(
    `SELECT h.organization_id, h.webhook_id, h.consecutive, h.resumes FROM webhook_health h
     JOIN webhook_subscriptions s ON s.organization_id = h.organization_id AND s.id = h.webhook_id AND s.active AND s.resumes = h.resumes
     WHERE h.consecutive >= $1`,
    [pauseAfter],
  );
  return rows;
}

/** Queued pushes of one subscription (tests and the operator). */
export async function queuedFor(db: Queryable, organizationId: string, webhookId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_queue WHERE organization_id = $1 AND webhook_id = $2', [organizationId, webhookId]);
  return Number(rows[0].n);
}
