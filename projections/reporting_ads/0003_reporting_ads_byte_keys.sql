-- Ids compare byte by byte (COLLATE "C"): all their indexes, groupings and sorts need, and about twice as
-- cheap as the database's locale rules (C.UTF-8 is not treated as "C").
ALTER TABLE report_spend_facts
  ALTER COLUMN organization_id TYPE text COLLATE "C", ALTER COLUMN account TYPE text COLLATE "C",
  ALTER COLUMN ad_id TYPE text COLLATE "C", ALTER COLUMN campaign_id TYPE text COLLATE "C",
  ALTER COLUMN adset_id TYPE text COLLATE "C", ALTER COLUMN currency TYPE text COLLATE "C";
ALTER TABLE report_spend_levels
  ALTER COLUMN organization_id TYPE text COLLATE "C", ALTER COLUMN level TYPE text COLLATE "C",
  ALTER COLUMN account TYPE text COLLATE "C", ALTER COLUMN campaign_id TYPE text COLLATE "C",
  ALTER COLUMN id TYPE text COLLATE "C", ALTER COLUMN currency TYPE text COLLATE "C";
ALTER TABLE report_ads
  ALTER COLUMN organization_id TYPE text COLLATE "C", ALTER COLUMN ad_id TYPE text COLLATE "C";
ALTER TABLE report_ad_names
  ALTER COLUMN organization_id TYPE text COLLATE "C", ALTER COLUMN level TYPE text COLLATE "C", ALTER COLUMN id TYPE text COLLATE "C";
