-- Spend as whole millionths of the currency unit (amounts were already kept to 6 decimals). A report sums tens of
-- thousands of fact rows per request, and PostgreSQL sums integers (read as float8, exact below 2^53) in about
-- half the time of numeric.
ALTER TABLE report_spend_facts RENAME COLUMN spend TO spend_micros;
ALTER TABLE report_spend_facts ALTER COLUMN spend_micros TYPE bigint USING round(spend_micros * 1000000);
ALTER TABLE report_spend_levels RENAME COLUMN spend TO spend_micros;
ALTER TABLE report_spend_levels ALTER COLUMN spend_micros TYPE bigint USING round(spend_micros * 1000000);
-- The rewritten tables' statistics: the reports' plans depend on them.
ANALYZE report_spend_facts, report_spend_levels;
