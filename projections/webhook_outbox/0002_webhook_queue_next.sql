-- The sender picks each subscription's next pushes in order through this index (fair between subscriptions,
-- and cheap however long the queue is).
CREATE INDEX IF NOT EXISTS webhook_queue_next ON public.webhook_queue (organization_id, webhook_id, due_at, seq);
DROP INDEX IF EXISTS public.webhook_queue_webhook;
