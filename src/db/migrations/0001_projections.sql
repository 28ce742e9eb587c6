CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name text PRIMARY KEY,
  commit_position bigint NOT NULL DEFAULT -1,
  prepare_position bigint NOT NULL DEFAULT -1,
  status text NOT NULL DEFAULT 'running',
  error text NOT NULL DEFAULT '',
  events_applied bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
