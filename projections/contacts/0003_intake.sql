-- Platform pages connected to organisations (the leadgen webhook finds the organisation by page id).
CREATE TABLE IF NOT EXISTS platform_pages (
  page_id text PRIMARY KEY,
  organization_id text NOT NULL,
  token_ciphertext text NOT NULL,
  connected_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS platform_pages_org ON platform_pages (organization_id, page_id);

-- Leads announced by the webhook and not fetched yet: the lead-fetch process claims due rows.
CREATE TABLE IF NOT EXISTS lead_fetches (
  organization_id text NOT NULL,
  lead_id text NOT NULL,
  platform_lead_id text NOT NULL,
  platform_form_id text NOT NULL,
  page_id text NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  PRIMARY KEY (organization_id, lead_id)
);
CREATE INDEX IF NOT EXISTS lead_fetches_due ON lead_fetches (next_attempt_at);
