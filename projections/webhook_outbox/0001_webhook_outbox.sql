-- The fan-out's view of the subscriptions, at its own point of the stream (rebuilt like any read model).
CREATE TABLE webhook_subscriptions (
  organization_id text NOT NULL,
  id text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  active boolean NOT NULL,
  secret_ciphertext text NOT NULL,
  -- How many times it was resumed: the sender's failure count restarts when this changes.
  resumes integer NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, id)
);

-- Work tables, schema-qualified and never rebuilt: a rebuild creates no second copy, and replaying
-- the store can never queue a push twice (public.webhook_outbox_mark says how far pushes were queued).
CREATE TABLE IF NOT EXISTS public.webhook_queue (
  id text PRIMARY KEY,
  seq bigserial,
  organization_id text NOT NULL,
  webhook_id text NOT NULL,
  event_type text NOT NULL,
  event_id text NOT NULL,
  payload jsonb NOT NULL,
  -- The body's created_at: the domain event's time, ISO 8601 with milliseconds.
  created_at text NOT NULL,
  due_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  claim_token text,
  claimed_until timestamptz
);
-- Its index is made in 0002 (the two first made here were dropped again by 0002 and 0003). A rebuild runs
-- these migrations again, and a CREATE INDEX IF NOT EXISTS locks the live queue against every writer
-- even when the index exists: statements on the work tables must be no-ops that take no lock there.

CREATE TABLE IF NOT EXISTS public.webhook_outbox_mark (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL
);
INSERT INTO public.webhook_outbox_mark (id, commit_position, prepare_position) VALUES (true, -1, -1) ON CONFLICT (id) DO NOTHING;

-- The sender's count of failed attempts in a row per subscription (written only by the sender).
CREATE TABLE IF NOT EXISTS public.webhook_health (
  organization_id text NOT NULL,
  webhook_id text NOT NULL,
  consecutive integer NOT NULL,
  resumes integer NOT NULL,
  PRIMARY KEY (organization_id, webhook_id)
);
