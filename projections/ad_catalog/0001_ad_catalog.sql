-- Ads seen in spend data per ad account, and when their creative was last read: the creative sync's worklist.
CREATE TABLE IF NOT EXISTS ad_catalog (
  organization_id text NOT NULL,
  account text NOT NULL,
  ad_id text NOT NULL,
  last_seen_date date NOT NULL,
  creative_id text,
  creative_synced_at timestamptz,
  PRIMARY KEY (organization_id, account, ad_id)
);
CREATE INDEX IF NOT EXISTS ad_catalog_creatives ON ad_catalog (organization_id, account, creative_synced_at);
