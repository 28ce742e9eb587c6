-- Service-wide secrets (cursor signing, encryption at rest), created once and shared by every process.
CREATE TABLE IF NOT EXISTS service_secrets (
  name text PRIMARY KEY,
  value text NOT NULL
);
