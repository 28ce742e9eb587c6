// Creative sync events (stream adcreative-<orgId>-<account>): the creative each ad shows, so the reports
// can group ads that show the same video, image or creative.
export interface AdCreativeSynced {
  organizationId: string;
  account: string;
  ad_id: string;
  creative_id: string;
  video_id: string | null;
  image_hash: string | null;
  /** video, image, carousel or other. */
  format: string;
  thumbnail_url: string;
  title: string;
  body: string;
  syncedAt: string;
}

export type AdCreativeEvent = { type: 'AdCreativeSynced'; data: AdCreativeSynced };

/** The creative group of an ad: the same video, else the same image, else the same creative. */
export function creativeGroupOf(creative: Pick<AdCreativeSynced, 'video_id' | 'image_hash' | 'creative_id'>): string {
  if (creative.video_id) return `video:${creative.video_id}`;
  if (creative.image_hash) return `image:${creative.image_hash}`;
  return `creative:${creative.creative_id}`;
}
