// The hand-built campaign scenario: two ad accounts (PLN and EUR), organic and unattributed leads, a sale
// after the range, a replaced spend day, a lead at the zone's midnight. The numbers the tests expect are
// worked out in campaign.test.ts from this list.
import type { Given, AdRef } from './events.ts';
import { spendDay } from './events.ts';

export const A1: AdRef = { campaign: 'c1', adset: 's1', ad: 'a1' };
export const A2: AdRef = { campaign: 'c1', adset: 's1', ad: 'a2' };
export const A3: AdRef = { campaign: 'c1', adset: 's2', ad: 'a3' };
export const A4: AdRef = { campaign: 'c2', adset: 's3', ad: 'a4' };
export const A5: AdRef = { campaign: 'c3', adset: 's4', ad: 'a5' };
/** Never synced: its lead counts in the organisation's currency. */
export const A6: AdRef = { campaign: 'c4', adset: 's5', ad: 'a6' };

/** The range the tests ask for, and the previous period of the same length. */
export const RANGE = { from: '2024-03-01', to: '2024-03-10' };
export const PREVIOUS = { from: '2024-02-20', to: '2024-02-29' };

export async function givenCampaignScenario(given: Given): Promise<void> {
  await given.accountConnected('act_1', 'PLN');
  await given.accountConnected('act_2', 'EUR');
  await given.spendSynced('act_1', 'PLN', [
    spendDay(A1, '2024-02-25', 80, { platform_leads: 1 }),
    spendDay(A1, '2024-03-01', 100, { platform_leads: 2 }),
    spendDay(A1, '2024-03-05', 50, { platform_leads: 1 }),
    spendDay(A2, '2024-03-02', 40, { platform_leads: 1 }),
    spendDay(A3, '2024-03-03', 30, { platform_leads: 1 }),
    spendDay(A5, '2024-03-08', 10),
    spendDay(A1, '2024-03-15', 999, { platform_leads: 9 }),
  ]);
  // A later sync replaces the day: 50 -> 60, 1 -> 3 platform leads.
  await given.spendSynced('act_1', 'PLN', [spendDay(A1, '2024-03-05', 60, { platform_leads: 3 })]);
  await given.spendSynced('act_2', 'EUR', [spendDay(A4, '2024-02-21', 10), spendDay(A4, '2024-03-04', 20, { platform_leads: 1 })]);
  await given.syncSucceeded('act_1', '2024-02-01', '2024-03-31', '2024-04-01T03:00:00.000Z');
  await given.syncSucceeded('act_2', '2024-03-01', '2024-03-31', '2024-04-01T03:00:00.000Z');
  await given.syncFailed('act_2', 'token expired', '2024-04-02T03:00:00.000Z');

  await given.leadReceived('l1', A1, '2024-03-01T10:00:00Z');
  await given.stage('l1', 'new', 'qualified', '2024-03-03T10:00:00Z');
  await given.stage('l1', 'qualified', 'sold', '2024-04-20T10:00:00Z', { value: 500, currency: 'PLN' }); // after the range
  await given.leadReceived('l2', A1, '2024-03-05T12:00:00Z');
  await given.stage('l2', 'new', 'rejected', '2024-03-06T12:00:00Z');
  await given.leadReceived('l3', A2, '2024-03-02T09:00:00Z');
  await given.stage('l3', 'new', 'contacted', '2024-03-02T10:00:00Z');
  await given.leadReceived('l4', A3, '2024-03-03T09:00:00Z');
  await given.stage('l4', 'new', 'qualified', '2024-03-04T09:00:00Z');
  await given.stage('l4', 'qualified', 'rejected', '2024-03-09T09:00:00Z');
  await given.leadReceived('l5', A4, '2024-03-04T09:00:00Z');
  await given.stage('l5', 'new', 'sold', '2024-03-05T09:00:00Z', { value: 300, currency: 'EUR' });
  await given.leadReceived('l6', null, '2024-03-06T09:00:00Z'); // organic
  await given.stage('l6', 'new', 'sold', '2024-03-07T09:00:00Z', { value: 100, currency: 'PLN' });
  await given.leadReceived('l7', null, '2024-03-06T10:00:00Z', { adSource: { platform: 'facebook', campaign_id: 'c1', campaign_name: 'Campaign c1', adset_id: '', adset_name: '', ad_id: '', ad_name: '' } });
  await given.leadReceived('l8', A2, '2024-02-29T23:30:00Z'); // 00:30 on 1 March in Warsaw
  await given.leadReceived('l9', A1, '2024-03-10T23:30:00Z'); // 00:30 on 11 March in Warsaw: outside
  await given.leadReceived('l10', A1, '2024-02-25T09:00:00Z'); // previous period
  await given.stage('l10', 'new', 'sold', '2024-02-26T09:00:00Z', { value: 200, currency: 'PLN' });
  await given.leadReceived('l11', null, '2024-03-07T09:00:00Z', { pending: true }); // webhook lead, data fetched later
  await given.leadFetched('l11', A3, '2024-03-07T09:00:00Z');
  await given.leadReceived('l12', A6, '2024-03-08T09:00:00Z');
}
