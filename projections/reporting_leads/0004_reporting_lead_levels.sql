-- Lead cohort counters per campaign and per ad set, at the same grains and buckets as report_lead_facts (the sums of
-- their ads' rows): the campaign and ad set levels, and every level's previous period, read one row per campaign or
-- ad set and bucket instead of one per ad. id is the campaign's id at level 'campaign', the ad set's at level 'adset'.
CREATE TABLE IF NOT EXISTS report_lead_levels (
  organization_id text COLLATE "C" NOT NULL,
  level text COLLATE "C" NOT NULL,
  grain smallint NOT NULL,
  bucket date NOT NULL,
  organic boolean NOT NULL,
  campaign_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  currency text COLLATE "C" NOT NULL,
  leads integer NOT NULL,
  qualified integer NOT NULL,
  rejected integer NOT NULL,
  sales integer NOT NULL,
  revenue_micros bigint NOT NULL,
  PRIMARY KEY (organization_id, level, grain, bucket, organic, campaign_id, id, currency)
);
-- Installs that already hold facts get their roll-ups from them.
INSERT INTO report_lead_levels (organization_id, level, grain, bucket, organic, campaign_id, id, currency,
                                leads, qualified, rejected, sales, revenue_micros)
SELECT f.organization_id, l.level, f.grain, f.bucket, f.organic, f.campaign_id,
       CASE WHEN l.level = 'campaign' THEN f.campaign_id ELSE f.adset_id END, f.currency,
       sum(f.leads), sum(f.qualified), sum(f.rejected), sum(f.sales), sum(f.revenue_micros)
FROM report_lead_facts f CROSS JOIN (VALUES ('campaign'), ('adset')) AS l(level)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
ANALYZE report_lead_levels;
