-- The delivery process's work table: what is due, for which dataset, with what to send. Rows leave it when
-- their delivery is accepted, failed or cancelled. claimed_until is a lease: a worker that dies lets go.
CREATE TABLE IF NOT EXISTS delivery_queue (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  event_id text NOT NULL,
  target_id text NOT NULL,
  dataset_id text NOT NULL,
  event_name text NOT NULL,
  platform_event_id text NOT NULL,
  test_event_code text,
  event_time timestamptz NOT NULL,
  payload jsonb NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz NOT NULL,
  claimed_until timestamptz,
  claim_token text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS delivery_queue_due ON delivery_queue (due_at);
CREATE INDEX IF NOT EXISTS delivery_queue_target_due ON delivery_queue (target_id, due_at);
