CREATE TABLE IF NOT EXISTS jobs (
  organization_id text NOT NULL,
  number integer NOT NULL,
  kind text NOT NULL,
  label text NOT NULL,
  scope text NOT NULL,
  status text NOT NULL,
  priority text NOT NULL,
  trigger text NOT NULL,
  progress_done integer NOT NULL DEFAULT 0,
  progress_text text NOT NULL DEFAULT '',
  attempts integer NOT NULL DEFAULT 0,
  error text NOT NULL DEFAULT '',
  summary text NOT NULL DEFAULT '',
  run_after timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  created timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, number)
);
CREATE INDEX IF NOT EXISTS jobs_list ON jobs (organization_id, updated_at, number);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (organization_id, status, updated_at, number);
CREATE INDEX IF NOT EXISTS jobs_scope ON jobs (organization_id, kind, scope, status, started_at);
