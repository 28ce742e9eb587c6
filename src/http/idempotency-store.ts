// SQL of the Idempotency-Key records: claim before the handler runs, complete or release after it.
import type { Queryable } from '../db/pool.ts';

export interface RecordKey {
  organizationId: string;
  keyId: string;
  idempotencyKey: string;
}

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  /** The JSON text sent the first time, or null for an answer without a body (204). */
  body: string | null;
}

export type ExistingRecord =
  | { state: 'running'; fingerprint: string; claim: string; claimXid: string | null; createdAt: Date }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer };

interface RecordRow {
  fingerprint: string;
  claim: string;
  claim_xid: string | null;
  created_at: Date;
  state: 'running' | 'done';
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

/**
 * Take the record for this request: a new one, or one that expired (older than `expiredBefore`). True when claimed.
 * The claim keeps its own transaction id: the events its request appends come later (claimLanded).
 */
export async function claimRecord(
  db: Queryable, key: RecordKey, claim: { fingerprint: string; token: string; now: Date; expiredBefore: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO idempotency_records AS r (organization_id, key_id, idempotency_key, fingerprint, claim, state, created_at, claim_xid)
     VALUES ($1, $2, $3, $4, $5, 'running', $6, pg_current_xact_id())
     ON CONFLICT (organization_id, key_id, idempotency_key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, state = 'running',
           status = NULL, headers = NULL, body = NULL, created_at = EXCLUDED.created_at, claim_xid = EXCLUDED.claim_xid
       WHERE r.created_at <= $7`,
    [key.organizationId, key.keyId, key.idempotencyKey, claim.fingerprint, claim.token, claim.now, claim.expiredBefore],
  );
  return rowCount === 1;
}

/** Take over a claim whose request died with its process (`from`, still running): true when this request now holds it. */
export async function takeOverRecord(db: Queryable, key: RecordKey, claim: { from: string; token: string; now: Date }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_records SET claim = $5, created_at = $6, claim_xid = pg_current_xact_id()
     WHERE organization_id = $1 AND key_id = $2 AND idempotency_key = $3 AND claim = $4 AND state = 'running'`,
    [key.organizationId, key.keyId, key.idempotencyKey, claim.from, claim.token, claim.now],
  );
  return rowCount === 1;
}

/**
 * Whether the request of a claim appended events (PostgreSQL event store): they carry the claim in their metadata
 * (src/http/register.ts) and were written after the claim's own transaction, so only the events since are read
 * (es_events_order leads with the transaction id).
 */
export async function claimLanded(db: Queryable, claim: string, claimXid: string): Promise<boolean> {
  const { rows } = await db.query<{ landed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM es_events WHERE transaction_id >= $1::xid8 AND metadata->>'idempotencyClaim' = $2) AS landed`,
    [claimXid, claim],
  );
  return rows[0].landed;
}

export async function readRecord(db: Queryable, key: RecordKey): Promise<ExistingRecord | null> {
  const { rows } = await db.query<RecordRow>(
    `SELECT fingerprint, claim, claim_xid::text, created_at, state, status, headers, body FROM idempotency_records
     WHERE organization_id = $1 AND key_id = $2 AND idempotency_key = $3`,
    [key.organizationId, key.keyId, key.idempotencyKey],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.state === 'running') return { state: 'running', fingerprint: row.fingerprint, claim: row.claim, claimXid: row.claim_xid, createdAt: row.created_at };
  return { state: 'done', fingerprint: row.fingerprint, answer: { status: row.status ?? 200, headers: row.headers ?? {}, body: row.body } };
}

export async function completeRecord(db: Queryable, key: RecordKey, token: string, answer: StoredAnswer): Promise<void> {
  await db.query(
    `UPDATE idempotency_records SET state = 'done', status = $5, headers = $6, body = $7
     WHERE organization_id = $1 AND key_id = $2 AND idempotency_key = $3 AND claim = $4`,
    [key.organizationId, key.keyId, key.idempotencyKey, token, answer.status, JSON.stringify(answer.headers), answer.body],
  );
}

/** Give the key back (after a 5xx or 429): the same key may be retried. */
export async function releaseRecord(db: Queryable, key: RecordKey, token: string): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_records
     WHERE organization_id = $1 AND key_id = $2 AND idempotency_key = $3 AND claim = $4 AND state = 'running'`,
    [key.organizationId, key.keyId, key.idempotencyKey, token],
  );
}

export async function purgeRecords(db: Queryable, organizationId: string, createdBefore: Date): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM idempotency_records WHERE organization_id = $1 AND created_at <= $2',
    [organizationId, createdBefore],
  );
  return rowCount ?? 0;
}
