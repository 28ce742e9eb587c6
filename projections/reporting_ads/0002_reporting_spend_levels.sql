-- Spend per campaign and per ad set, at the same grains and buckets as report_spend_facts (the sums of their
-- ads' rows): the campaign and ad set reports read one row per campaign or ad set and bucket, not one per ad.
-- id is the campaign's id at level 'campaign', the ad set's at level 'adset'.
CREATE TABLE IF NOT EXISTS report_spend_levels (
  organization_id text NOT NULL,
  level text NOT NULL,
  grain smallint NOT NULL,
  bucket date NOT NULL,
  account text NOT NULL,
  campaign_id text NOT NULL,
  id text NOT NULL,
  currency text NOT NULL,
  spend numeric NOT NULL,
  impressions bigint NOT NULL,
  clicks bigint NOT NULL,
  reach bigint NOT NULL,
  platform_leads integer NOT NULL,
  PRIMARY KEY (organization_id, level, grain, bucket, account, campaign_id, id)
);
-- Installs that already hold facts get their roll-ups from them (buckets are the sums of their days).
INSERT INTO report_spend_levels (organization_id, level, grain, bucket, account, campaign_id, id, currency,
                                 spend, impressions, clicks, reach, platform_leads)
SELECT f.organization_id, l.level, f.grain, f.bucket, f.account, f.campaign_id,
       CASE WHEN l.level = 'campaign' THEN f.campaign_id ELSE f.adset_id END, max(f.currency),
       sum(f.spend), sum(f.impressions), sum(f.clicks), sum(f.reach), sum(f.platform_leads)
FROM report_spend_facts f CROSS JOIN (VALUES ('campaign'), ('adset')) AS l(level)
GROUP BY 1, 2, 3, 4, 5, 6, 7
ON CONFLICT DO NOTHING;
