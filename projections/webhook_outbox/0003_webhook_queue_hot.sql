-- The claim sets only unindexed columns (claim_token, claimed_until): room kept free on each page lets it be
-- a HOT update, with no new index entries. The (due_at, seq) index served no query (every claim goes through
-- webhook_queue_next, per subscription) and cost an entry on every insert and retry.
-- Checked first: the ALTER would lock the live queue on every rebuild, which runs these migrations again.
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_class WHERE oid = 'public.webhook_queue'::regclass AND reloptions @> ARRAY['fillfactor=70']) THEN
    ALTER TABLE public.webhook_queue SET (fillfactor = 70);
  END IF;
END $$;
DROP INDEX IF EXISTS public.webhook_queue_due;
