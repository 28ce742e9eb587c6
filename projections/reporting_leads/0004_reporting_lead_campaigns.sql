-- Lead cohort counters per campaign, at the same grains and buckets as report_lead_facts (the sums of their ads'
-- rows): the campaign level, and the previous period of every level, read one row per campaign and bucket instead
-- of one per ad. (Per ad set too would cost a rebuild three times as much for the ad set level alone.)
CREATE TABLE IF NOT EXISTS report_lead_campaigns (
  organization_id text COLLATE "C" NOT NULL,
  grain smallint NOT NULL,
  bucket date NOT NULL,
  organic boolean NOT NULL,
  campaign_id text COLLATE "C" NOT NULL,
  currency text COLLATE "C" NOT NULL,
  leads integer NOT NULL,
  qualified integer NOT NULL,
  rejected integer NOT NULL,
  sales integer NOT NULL,
  revenue_micros bigint NOT NULL,
  PRIMARY KEY (organization_id, grain, bucket, organic, campaign_id, currency)
);
-- Installs that already hold facts get their roll-ups from them.
INSERT INTO report_lead_campaigns (organization_id, grain, bucket, organic, campaign_id, currency, leads, qualified, rejected, sales, revenue_micros)
SELECT organization_id, grain, bucket, organic, campaign_id, currency, sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue_micros)
FROM report_lead_facts
GROUP BY 1, 2, 3, 4, 5, 6;
ANALYZE report_lead_campaigns;
