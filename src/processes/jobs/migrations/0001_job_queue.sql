-- The job engine's work table: only jobs still to finish (queued or running) live here; the jobs read
-- model keeps the history. Workers claim due rows with FOR UPDATE SKIP LOCKED and hold a lease.
CREATE TABLE IF NOT EXISTS job_queue (
  organization_id text NOT NULL,
  number integer NOT NULL,
  kind text NOT NULL,
  scope text NOT NULL,
  trigger text NOT NULL,
  -- 0 user, 1 background: user jobs are claimed first.
  priority smallint NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running')),
  params jsonb NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  run_after timestamptz NOT NULL,
  lease_until timestamptz,
  worker_id text,
  -- Revision of the job stream's last event, so transitions append without reading the stream.
  revision bigint NOT NULL,
  queued_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, number)
);
-- The same work (kind and scope) is never queued twice while one is queued or running.
CREATE UNIQUE INDEX IF NOT EXISTS job_queue_one_active ON job_queue (organization_id, kind, scope);
CREATE INDEX IF NOT EXISTS job_queue_due ON job_queue (priority, run_after, queued_at) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS job_queue_leases ON job_queue (lease_until) WHERE status = 'running';

-- Periodic work per organisation, fed from connection events; next_run_at survives restarts.
CREATE TABLE IF NOT EXISTS job_schedules (
  organization_id text NOT NULL,
  kind text NOT NULL,
  scope text NOT NULL,
  every_ms bigint NOT NULL,
  next_run_at timestamptz NOT NULL,
  last_enqueued_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, kind, scope)
);
CREATE INDEX IF NOT EXISTS job_schedules_due ON job_schedules (next_run_at);

-- Where the scheduler's event feed stands (the feed writes its schedules and this row in one transaction).
CREATE TABLE IF NOT EXISTS job_feed_checkpoints (
  name text PRIMARY KEY,
  position text NOT NULL
);
