-- The organisation's zone, so a lead's submitted time becomes a local day when it is projected.
CREATE TABLE IF NOT EXISTS report_zones (
  organization_id text PRIMARY KEY,
  timezone text NOT NULL
);
-- One row per lead: the cohort state the facts were computed from (what a later stage change corrects).
CREATE TABLE IF NOT EXISTS report_leads (
  organization_id text NOT NULL,
  lead_id text NOT NULL,
  day date,
  organic boolean NOT NULL,
  campaign_id text NOT NULL,
  adset_id text NOT NULL,
  ad_id text NOT NULL,
  stage text NOT NULL,
  qualified boolean NOT NULL,
  sale_value numeric,
  sale_currency text NOT NULL,
  PRIMARY KEY (organization_id, lead_id)
);
-- Cohort counters per local submission day, rolled up into 7- and 56-day buckets (grain) so a year is a
-- few dozen rows per ad. currency '' = the ad account's currency, resolved when a report reads it.
CREATE TABLE IF NOT EXISTS report_lead_facts (
  organization_id text NOT NULL,
  grain smallint NOT NULL,
  bucket date NOT NULL,
  organic boolean NOT NULL,
  campaign_id text NOT NULL,
  adset_id text NOT NULL,
  ad_id text NOT NULL,
  currency text NOT NULL,
  leads integer NOT NULL,
  qualified integer NOT NULL,
  rejected integer NOT NULL,
  sales integer NOT NULL,
  revenue numeric NOT NULL,
  PRIMARY KEY (organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency)
);
-- Names of campaigns, ad sets and ads as the leads' ad data last gave them.
CREATE TABLE IF NOT EXISTS report_lead_names (
  organization_id text NOT NULL,
  level text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  PRIMARY KEY (organization_id, level, id)
);
