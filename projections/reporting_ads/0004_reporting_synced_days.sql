-- The days successful spend syncs actually covered, as a set of ranges: synced_from..synced_to alone is
-- the hull, which counts the gap between a sync of 2025-01 and one of 2026-09..2026-11 as synced.
-- Rows projected before this column start from their hull (what the report said so far);
-- `ops projections rebuild reporting_ads` replaces it with the synced windows themselves.
ALTER TABLE report_accounts ADD COLUMN IF NOT EXISTS synced_days datemultirange;
UPDATE report_accounts SET synced_days = datemultirange(daterange(synced_from, synced_to, '[]'))
  WHERE synced_days IS NULL AND synced_from IS NOT NULL AND synced_to IS NOT NULL AND synced_from <= synced_to;
