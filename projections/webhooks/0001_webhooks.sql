-- The webhook subscriptions as the API shows them (no secret), and their push attempts (kept 30 days).
CREATE TABLE webhooks (
  organization_id text NOT NULL,
  id text NOT NULL,
  url text NOT NULL,
  description text NOT NULL,
  events text[] NOT NULL,
  active boolean NOT NULL,
  last_status integer NOT NULL DEFAULT 0,
  last_error text NOT NULL DEFAULT '',
  last_delivery_at timestamptz,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, id)
);
CREATE INDEX webhooks_keyset ON webhooks (organization_id, updated_at, id);

CREATE TABLE webhook_attempts (
  organization_id text NOT NULL,
  webhook_id text NOT NULL,
  -- The id of the WebhookDeliveryAttempted event.
  id text NOT NULL,
  delivery_id text NOT NULL,
  event text NOT NULL,
  attempt integer NOT NULL,
  status integer NOT NULL,
  success boolean NOT NULL,
  error text NOT NULL,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, id)
);
CREATE INDEX webhook_attempts_keyset ON webhook_attempts (organization_id, webhook_id, created_at, id);
CREATE INDEX webhook_attempts_age ON webhook_attempts (created_at);
