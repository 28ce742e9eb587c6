// Where an ad sits in the platform's hierarchy: a lead's source and a spend row name it the same way.
export interface AdRow {
  campaign_id: string;
  campaign_name: string;
  adset_id: string;
  adset_name: string;
  ad_id: string;
  ad_name: string;
}
