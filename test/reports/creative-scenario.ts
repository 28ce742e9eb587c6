// The hand-built creative scenario: four weeks ending Thursday 2024-03-28, a video shown by two ads in
// two campaigns, an image, a carousel in a EUR account, and an ad whose creative was never synced.
import { tagCreativeGroup } from '../../commands/creativegroup/handlers.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { spendDay, type AdRef, type Given } from './events.ts';

export const TO = '2024-03-28';
/** A day inside each of the four weeks (W1 03-01..07, W2 03-08..14, W3 03-15..21, W4 03-22..28). */
export const WEEK_DAYS = ['2024-03-04', '2024-03-11', '2024-03-18', '2024-03-25'];

const V1A: AdRef = { campaign: 'c1', adset: 's1', ad: 'v1a' };
const V1B: AdRef = { campaign: 'c2', adset: 's2', ad: 'v1b' };
const I1: AdRef = { campaign: 'c1', adset: 's1', ad: 'i1' };
const K1: AdRef = { campaign: 'c3', adset: 's3', ad: 'k1' };
const X: AdRef = { campaign: 'c1', adset: 's1', ad: 'x' };

let leadNumber = 0;
async function leads(given: Given, ad: AdRef | null, day: string, n: number, options: Parameters<Given['leadReceived']>[3] = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `cl${++leadNumber}`;
    await given.leadReceived(id, ad, `${day}T11:00:00Z`, options);
    ids.push(id);
  }
  return ids;
}

export async function givenCreativeScenario(given: Given, store: EventStore): Promise<void> {
  await given.accountConnected('act_1', 'PLN');
  await given.accountConnected('act_2', 'EUR');
  await given.creativeSynced('act_1', 'v1a', { video_id: 'V1', format: 'video', title: 'Question hook' });
  await given.creativeSynced('act_1', 'v1b', { video_id: 'V1', format: 'video', title: 'Question hook' });
  await given.creativeSynced('act_1', 'i1', { image_hash: 'IMG1', format: 'image', title: 'Pain point' });
  await given.creativeSynced('act_2', 'k1', { creative_id: 'CR1', format: 'carousel', title: 'Carousel' });
  // v1a: CTR 2%, 2%, 1.6%, 1.2% while daily reach shrinks; v1b starts in week 4.
  const v1a = [[10_000, 200, 8000], [10_000, 200, 8000], [10_000, 160, 7000], [10_000, 120, 6000]];
  await given.spendSynced('act_1', 'PLN', [
    spendDay(V1A, '2024-02-15', 70, { impressions: 5000, clicks: 100, reach: 5000 }),
    ...WEEK_DAYS.map((day, i) => spendDay(V1A, day, 100, { impressions: v1a[i][0], clicks: v1a[i][1], reach: v1a[i][2] })),
    spendDay(V1B, WEEK_DAYS[3], 50, { impressions: 5000, clicks: 100, reach: 5000 }),
    ...WEEK_DAYS.map((day) => spendDay(I1, day, 50, { impressions: 5000, clicks: 100, reach: 5000 })),
    spendDay(X, WEEK_DAYS[1], 20, { impressions: 2000, clicks: 20, reach: 2000 }),
  ]);
  await given.spendSynced('act_2', 'EUR', [spendDay(K1, WEEK_DAYS[3], 30, { impressions: 3000, clicks: 30, reach: 3000 })]);

  await leads(given, V1A, '2024-02-15', 1);
  const [sold] = await leads(given, V1A, WEEK_DAYS[0], 5);
  await given.stage(sold, 'new', 'sold', '2024-04-02T10:00:00Z', { value: 1000, currency: 'PLN' });
  await leads(given, V1A, WEEK_DAYS[1], 5);
  await leads(given, V1A, WEEK_DAYS[2], 4);
  await leads(given, V1A, WEEK_DAYS[3], 2);
  await leads(given, V1B, WEEK_DAYS[3], 1);
  for (const day of WEEK_DAYS) await leads(given, I1, day, 2);
  await leads(given, K1, WEEK_DAYS[3], 1);
  await leads(given, X, WEEK_DAYS[2], 2); // its ad has no creative: unattributed
  await leads(given, null, WEEK_DAYS[2], 1, { adSource: { platform: 'facebook', campaign_id: 'c1', campaign_name: 'c1', adset_id: '', adset_name: '', ad_id: '', ad_name: '' } });
  await leads(given, null, WEEK_DAYS[2], 1); // organic: not a creative question

  const tag = async (groupId: string, changes: { dimension: 'hook' | 'creator' | 'offer'; value: string }[]) =>
    given.track((await tagCreativeGroup(store, { organizationId: given.organizationId, groupId, changes }, new Date())).position);
  await tag('video:V1', [{ dimension: 'hook', value: 'question' }, { dimension: 'creator', value: 'anna' }]);
  await tag('image:IMG1', [{ dimension: 'hook', value: 'pain' }]);
}
