-- The sender picks each subscription's next pushes in order through this index (fair between subscriptions,
-- and cheap however long the queue is).
-- Checked first: CREATE INDEX IF NOT EXISTS would lock the live queue even when the index exists (a rebuild).
DO $$ BEGIN
  IF to_regclass('public.webhook_queue_next') IS NULL THEN
    CREATE INDEX webhook_queue_next ON public.webhook_queue (organization_id, webhook_id, due_at, seq);
  END IF;
END $$;
DROP INDEX IF EXISTS public.webhook_queue_webhook;
