-- Request counts per key and one-minute window, shared by every API process. UNLOGGED: a count is
-- worth nothing after a crash, and skipping the WAL keeps the per-request upsert cheap.
-- organization_id is '' for requests without a valid key, counted per client address ('ip:ADDR').
CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_windows (
  organization_id text NOT NULL,
  subject text NOT NULL,
  window_minute bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (organization_id, subject, window_minute)
);
