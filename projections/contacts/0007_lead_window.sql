-- Leads by submission window in list order. A window (from/to) and the list's order (updated_at, id)
-- are different orders, so no index served both: a page either walked the list and read every lead's
-- row to test its submission time (3,000 recently changed old leads of the benchmark were read and dropped
-- on every page), or read the whole window and sorted it, and which was better depended on the window,
-- so each request was planned anew.
-- Leads are now split by submission time into 30-day buckets (counted from the Unix epoch in UTC, so
-- no zone is involved), and each bucket is indexed in list order with the submission time last: a window
-- is the few buckets it touches, each walked in list order with the window's bounds checked on the
-- index entries (a lead outside the window costs an index entry, not a row), merged (queries/leads.ts).
ALTER TABLE leads ADD COLUMN IF NOT EXISTS submitted_bucket integer
  GENERATED ALWAYS AS (floor(extract(epoch FROM submitted_at AT TIME ZONE 'UTC') / 2592000)::integer) STORED;
CREATE INDEX IF NOT EXISTS leads_window ON leads (organization_id, submitted_bucket, updated_at, id, submitted_at);
