CREATE TABLE IF NOT EXISTS contacts (
  organization_id text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  phone text NOT NULL,
  email text NOT NULL,
  phone_hash text,
  email_hash text,
  stage text NOT NULL,
  cycle integer NOT NULL,
  tags text[] NOT NULL,
  sms_optout boolean NOT NULL,
  first_source text NOT NULL,
  first_ad jsonb,
  owner_id text,
  -- Ads of the person's leads: the campaign, adset and ad filters ("people with a lead from it").
  campaign_ids text[] NOT NULL DEFAULT '{}',
  adset_ids text[] NOT NULL DEFAULT '{}',
  ad_ids text[] NOT NULL DEFAULT '{}',
  merged_into text,
  last_activity_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, id)
);
-- Lists leave merged cards out, so every list index is partial on merged_into IS NULL.
CREATE INDEX IF NOT EXISTS contacts_list ON contacts (organization_id, updated_at, id) WHERE merged_into IS NULL;
CREATE INDEX IF NOT EXISTS contacts_stage ON contacts (organization_id, stage, updated_at, id) WHERE merged_into IS NULL;
CREATE INDEX IF NOT EXISTS contacts_phone ON contacts (organization_id, phone_hash) WHERE phone_hash IS NOT NULL;
CREATE INDEX IF NOT EXISTS contacts_email ON contacts (organization_id, email_hash) WHERE email_hash IS NOT NULL;
CREATE INDEX IF NOT EXISTS contacts_tags ON contacts USING gin (tags) WHERE merged_into IS NULL;
CREATE INDEX IF NOT EXISTS contacts_campaigns ON contacts USING gin (campaign_ids) WHERE merged_into IS NULL;
CREATE INDEX IF NOT EXISTS contacts_adsets ON contacts USING gin (adset_ids) WHERE merged_into IS NULL;
CREATE INDEX IF NOT EXISTS contacts_ads ON contacts USING gin (ad_ids) WHERE merged_into IS NULL;

CREATE TABLE IF NOT EXISTS contact_notes (
  organization_id text NOT NULL,
  id text NOT NULL,
  contact_id text NOT NULL,
  kind text NOT NULL,
  text text NOT NULL,
  time timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, id)
);
CREATE INDEX IF NOT EXISTS contact_notes_contact ON contact_notes (organization_id, contact_id, time);

-- The organisation's do-not-send list (phones by hash).
CREATE TABLE IF NOT EXISTS sms_do_not_send (
  organization_id text NOT NULL,
  phone_hash text NOT NULL,
  since timestamptz NOT NULL,
  PRIMARY KEY (organization_id, phone_hash)
);
