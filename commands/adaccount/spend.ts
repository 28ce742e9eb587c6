// Spend sync events (stream adspend-<orgId>-<account>): the platform's daily per-ad numbers in chunks,
// then the sync's outcome. A later AdSpendSynced replaces earlier values for the same (account, date, ad).
import type { AdRow } from '../shared/ad.ts';

export interface SpendDayData extends AdRow {
  /** YYYY-MM-DD in the account's time zone. */
  date: string;
  spend: number;
  impressions: number;
  clicks: number;
  reach: number;
  frequency: number;
  /** The platform's lead count, each lead once (its lead action types overlap). */
  platform_leads: number;
}

export interface AdSpendSynced {
  organizationId: string;
  account: string;
  currency: string;
  /** The range of the sync this chunk belongs to. */
  since: string;
  until: string;
  days: SpendDayData[];
  syncedAt: string;
}

export type AdSpendEvent =
  | { type: 'AdSpendSynced'; data: AdSpendSynced }
  | { type: 'AdSpendSyncSucceeded'; data: { organizationId: string; account: string; since: string; until: string; rows: number; at: string } }
  | { type: 'AdSpendSyncFailed'; data: { organizationId: string; account: string; error: string; at: string } };

/** Rows per AdSpendSynced event: large enough to be cheap, small enough to stay a modest JSON document. */
export const SPEND_CHUNK_ROWS = 1000;

export interface SpendSync {
  organizationId: string;
  account: string;
  currency: string;
  since: string;
  until: string;
  now: string;
}

/** The synced rows as events of at most `chunkRows` rows each (none when the platform had no rows). */
export function spendChunks(sync: SpendSync, days: readonly SpendDayData[], chunkRows = SPEND_CHUNK_ROWS): AdSpendEvent[] {
  const events: AdSpendEvent[] = [];
  const { organizationId, account, currency, since, until, now } = sync;
  for (let i = 0; i < days.length; i += chunkRows) {
    events.push({ type: 'AdSpendSynced', data: { organizationId, account, currency, since, until, days: days.slice(i, i + chunkRows), syncedAt: now } });
  }
  return events;
}

export function spendSucceeded(sync: SpendSync, rows: number): AdSpendEvent {
  const { organizationId, account, since, until, now } = sync;
  return { type: 'AdSpendSyncSucceeded', data: { organizationId, account, since, until, rows, at: now } };
}

export function spendFailed(sync: Pick<SpendSync, 'organizationId' | 'account' | 'now'>, error: string): AdSpendEvent {
  return { type: 'AdSpendSyncFailed', data: { organizationId: sync.organizationId, account: sync.account, error, at: sync.now } };
}
