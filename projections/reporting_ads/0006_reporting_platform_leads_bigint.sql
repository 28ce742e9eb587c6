-- The platform's lead counts as bigint, like the other delivery counts: a campaign's 56-day roll-up of an integer
-- column overflowed (and stopped the projector for every organisation) past 2^31 leads.
ALTER TABLE report_spend_facts ALTER COLUMN platform_leads TYPE bigint;
ALTER TABLE report_spend_levels ALTER COLUMN platform_leads TYPE bigint;
ANALYZE report_spend_facts, report_spend_levels;
