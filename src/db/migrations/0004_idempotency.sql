-- Idempotency-Key records per organisation and API key: a claim while the first request runs, then
-- its stored answer for 24 hours.
CREATE TABLE IF NOT EXISTS idempotency_records (
  organization_id text NOT NULL,
  key_id text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  -- A random token of the request holding the claim, so that only it can complete or release it.
  claim text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  status integer,
  headers jsonb,
  body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, key_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS idempotency_records_age ON idempotency_records (organization_id, created_at);
