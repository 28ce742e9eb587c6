-- Ad accounts and the state of their spend syncs.
CREATE TABLE IF NOT EXISTS report_accounts (
  organization_id text NOT NULL,
  account text NOT NULL,
  name text NOT NULL DEFAULT '',
  currency text NOT NULL DEFAULT '',
  connected_at timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  last_error text NOT NULL DEFAULT '',
  synced_from date,
  synced_to date,
  last_rows integer,
  PRIMARY KEY (organization_id, account)
);
-- Spend and delivery per day and ad (grain 1: the values of the newest sync), rolled up into 7- and
-- 56-day buckets that the projector keeps equal to the sum of their days.
CREATE TABLE IF NOT EXISTS report_spend_facts (
  organization_id text NOT NULL,
  grain smallint NOT NULL,
  bucket date NOT NULL,
  account text NOT NULL,
  ad_id text NOT NULL,
  campaign_id text NOT NULL,
  adset_id text NOT NULL,
  currency text NOT NULL,
  spend numeric NOT NULL,
  impressions bigint NOT NULL,
  clicks bigint NOT NULL,
  reach bigint NOT NULL,
  platform_leads integer NOT NULL,
  PRIMARY KEY (organization_id, grain, bucket, account, ad_id)
);
-- Which account (so which currency), campaign and ad set an ad belongs to.
CREATE TABLE IF NOT EXISTS report_ads (
  organization_id text NOT NULL,
  ad_id text NOT NULL,
  account text NOT NULL,
  campaign_id text NOT NULL,
  adset_id text NOT NULL,
  currency text NOT NULL,
  PRIMARY KEY (organization_id, ad_id)
);
CREATE TABLE IF NOT EXISTS report_ad_names (
  organization_id text NOT NULL,
  level text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  PRIMARY KEY (organization_id, level, id)
);
-- The creative each ad shows and the group it falls in (same video, else image, else creative).
CREATE TABLE IF NOT EXISTS report_creative_ads (
  organization_id text NOT NULL,
  ad_id text NOT NULL,
  account text NOT NULL,
  group_id text NOT NULL,
  creative_id text NOT NULL,
  format text NOT NULL,
  thumbnail_url text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, ad_id)
);
CREATE INDEX IF NOT EXISTS report_creative_ads_group ON report_creative_ads (organization_id, group_id);
CREATE TABLE IF NOT EXISTS report_creative_tags (
  organization_id text NOT NULL,
  group_id text NOT NULL,
  tags text[] NOT NULL,
  tagged_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, group_id)
);
