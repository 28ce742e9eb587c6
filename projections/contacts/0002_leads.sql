CREATE TABLE IF NOT EXISTS leads (
  organization_id text NOT NULL,
  id text NOT NULL,
  platform_lead_id text NOT NULL,
  source_id text,
  form_name text NOT NULL,
  platform_form_id text NOT NULL,
  platform_page_id text NOT NULL,
  contact_id text,
  stage text NOT NULL,
  cycle integer NOT NULL,
  fetch_status text NOT NULL,
  fetch_error text,
  ad jsonb,
  campaign_id text,
  adset_id text,
  ad_id text,
  answers jsonb NOT NULL,
  -- [{stage, at, platform_event_queued}] in order.
  stages jsonb NOT NULL,
  via text NOT NULL,
  submitted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS leads_platform ON leads (organization_id, platform_lead_id);
CREATE INDEX IF NOT EXISTS leads_list ON leads (organization_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_contact ON leads (organization_id, contact_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_source ON leads (organization_id, source_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_campaign ON leads (organization_id, campaign_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_adset ON leads (organization_id, adset_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_ad ON leads (organization_id, ad_id, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_stage ON leads (organization_id, stage, updated_at, id);
CREATE INDEX IF NOT EXISTS leads_submitted ON leads (organization_id, submitted_at);
