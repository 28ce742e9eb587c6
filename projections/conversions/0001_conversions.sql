-- Conversions and their deliveries as GET /events and GET /deliveries show them: no payloads, no hashes.
CREATE TABLE IF NOT EXISTS events_view (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  source_id text NOT NULL,
  external_id text NOT NULL,
  status text NOT NULL,
  platform_event_id text NOT NULL,
  event_time timestamptz,
  value double precision,
  currency text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS events_view_page ON events_view (organization_id, updated_at, id);
CREATE INDEX IF NOT EXISTS events_view_external ON events_view (organization_id, external_id);
CREATE TABLE IF NOT EXISTS deliveries_view (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  event_id text NOT NULL,
  target_id text NOT NULL,
  dataset_id text NOT NULL,
  event_name text NOT NULL,
  platform_event_id text NOT NULL,
  mode text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text NOT NULL DEFAULT '',
  accepted_at timestamptz,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_view_page ON deliveries_view (organization_id, updated_at, id);
CREATE INDEX IF NOT EXISTS deliveries_view_event ON deliveries_view (organization_id, event_id);
