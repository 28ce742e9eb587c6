CREATE TABLE IF NOT EXISTS sources (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  csv_url text,
  columns jsonb,
  platform_form_id text,
  platform_page_id text,
  paused boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sources_org ON sources (organization_id, created_at, id);
CREATE TABLE IF NOT EXISTS targets (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  dataset_id text NOT NULL,
  token_ciphertext text NOT NULL,
  mode text NOT NULL,
  test_code text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS targets_org ON targets (organization_id, created_at, id);
CREATE TABLE IF NOT EXISTS flows (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  source_id text NOT NULL,
  target_id text NOT NULL,
  event_name text NOT NULL,
  trigger_kind text NOT NULL,
  trigger_value text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS flows_match ON flows (organization_id, source_id, trigger_kind, trigger_value) WHERE active;
