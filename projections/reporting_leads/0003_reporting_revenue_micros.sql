-- Revenue as whole millionths of the currency unit: see reporting_ads' 0005_reporting_spend_micros.sql. The
-- lead rows keep each sale's value as given; the facts, which the reports sum, hold micros.
ALTER TABLE report_lead_facts RENAME COLUMN revenue TO revenue_micros;
ALTER TABLE report_lead_facts ALTER COLUMN revenue_micros TYPE bigint USING round(revenue_micros * 1000000);
-- The rewritten tables' statistics: the reports' plans depend on them.
ANALYZE report_lead_facts;
