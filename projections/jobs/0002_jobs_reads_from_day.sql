-- A run that read from a day the operator gave (`--since`) is no watermark for the next scheduled lead import:
-- it may have started after leads it never read (a `--since` later than the last success), which the next run,
-- reading from the newest success, skipped for good. Rows of earlier runs keep false until a rebuild.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS reads_from_day boolean NOT NULL DEFAULT false;
