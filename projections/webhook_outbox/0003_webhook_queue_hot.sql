-- The claim sets only unindexed columns (claim_token, claimed_until): room kept free on each page lets it be
-- a HOT update, with no new index entries. The (due_at, seq) index served no query (every claim goes through
-- webhook_queue_next, per subscription) and cost an entry on every insert and retry.
ALTER TABLE public.webhook_queue SET (fillfactor = 70);
DROP INDEX IF EXISTS public.webhook_queue_due;
