-- The transaction id of the claim's own write: a request's events are appended in later transactions, so when a
-- claim is left by a process that died, the events after it tell whether its request made its change
-- (src/http/idempotency.ts). Null for claims taken before this column.
ALTER TABLE idempotency_records ADD COLUMN IF NOT EXISTS claim_xid xid8;
