// What the reports know about ads besides their facts: account and currency, names, sync state, creatives.
import type { Queryable } from '../../src/db/pool.ts';

export type Level = 'campaign' | 'adset' | 'ad';

export interface AdRow {
  ad_id: string;
  adset_id: string;
  campaign_id: string;
  account: string;
  currency: string;
}

export async function listAds(db: Queryable, organizationId: string): Promise<AdRow[]> {
  const { rows } = await db.query<AdRow>(
    'SELECT ad_id, adset_id, campaign_id, account, currency FROM report_ads WHERE organization_id = $1',
    [organizationId],
  );
  return rows;
}

export type Names = Record<Level, Map<string, string>>;

/**
 * Every name the organisation has at the levels given: the spend sync's (the platform's current naming) before the
 * leads' ad data. Read whole rather than for the rows found, so that it runs beside the facts instead of after them.
 */
export async function namesOf(db: Queryable, organizationId: string, levels: Level[]): Promise<Names> {
  const names: Names = { campaign: new Map(), adset: new Map(), ad: new Map() };
  const { rows } = await db.query<[Level, string, string, number]>({
    text: `SELECT level, id, name, 0 FROM report_ad_names WHERE organization_id = $1 AND level = ANY($2::text[])
           UNION ALL
           SELECT level, id, name, 1 FROM report_lead_names WHERE organization_id = $1 AND level = ANY($2::text[])`,
    values: [organizationId, levels],
    rowMode: 'array',
  });
  for (const [level, id, name, fromLeads] of rows) {
    if (fromLeads === 0 || !names[level].has(id)) names[level].set(id, name);
  }
  return names;
}

export interface AccountRow {
  account: string;
  name: string;
  currency: string;
  connected_at: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  last_error: string;
  synced_from: string | null;
  synced_to: string | null;
  /** The days successful syncs covered, oldest first, as inclusive ranges. */
  synced_ranges: DayRange[];
  last_rows: number | null;
}

export interface DayRange {
  from: string;
  to: string;
}

export async function listAccounts(db: Queryable, organizationId: string): Promise<AccountRow[]> {
  const { rows } = await db.query<AccountRow>(
    `SELECT account, name, currency, connected_at, last_success_at, last_failure_at, last_error,
            synced_from::text AS synced_from, synced_to::text AS synced_to, last_rows,
            COALESCE((SELECT json_agg(json_build_object('from', lower(r)::text, 'to', (upper(r) - 1)::text) ORDER BY lower(r))
                      FROM unnest(synced_days) AS r), '[]'::json) AS synced_ranges
     FROM report_accounts WHERE organization_id = $1 ORDER BY account`,
    [organizationId],
  );
  return rows;
}

export interface CreativeAdRow {
  ad_id: string;
  account: string;
  group_id: string;
  format: string;
  thumbnail_url: string;
  title: string;
  body: string;
}

/** Each ad's group, newest first within a group (the order gives the group its description; no time is parsed). */
export async function listCreativeAds(db: Queryable, organizationId: string): Promise<CreativeAdRow[]> {
  const { rows } = await db.query<CreativeAdRow>(
    `SELECT ad_id, account, group_id, format, thumbnail_url, title, body
     FROM report_creative_ads WHERE organization_id = $1 ORDER BY group_id, synced_at DESC, ad_id`,
    [organizationId],
  );
  return rows;
}

export async function listGroupTags(db: Queryable, organizationId: string): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ group_id: string; tags: string[] }>(
    'SELECT group_id, tags FROM report_creative_tags WHERE organization_id = $1',
    [organizationId],
  );
  return new Map(rows.map((r) => [r.group_id, r.tags]));
}

/**
 * Currency of a group of facts: the one stored with it, else the account currency of the ad (or, for
 * leads without that id, of their campaign), else the organisation's.
 */
export class Currencies {
  private readonly byId: Record<Level, Map<string, string>> = { campaign: new Map(), adset: new Map(), ad: new Map() };

  constructor(ads: AdRow[], creativeAds: Pick<CreativeAdRow, 'ad_id' | 'account'>[], accounts: AccountRow[], private readonly fallback: string) {
    const accountCurrency = new Map(accounts.filter((a) => a.currency).map((a) => [a.account, a.currency]));
    for (const c of creativeAds) {
      const currency = accountCurrency.get(c.account);
      if (currency) this.byId.ad.set(c.ad_id, currency);
    }
    for (const ad of ads) {
      this.byId.ad.set(ad.ad_id, ad.currency);
      this.byId.adset.set(ad.adset_id, ad.currency);
      this.byId.campaign.set(ad.campaign_id, ad.currency);
    }
  }

  /**
   * An ad known only from its creative sync (no spend synced yet) gives its account's currency to its campaign and ad
   * set, which no spend row named: their leads then count in the currency they count in at the ad level.
   */
  learnParents(adId: string, campaignId: string, adsetId: string): void {
    const currency = this.byId.ad.get(adId);
    if (!currency) return;
    if (campaignId && !this.byId.campaign.has(campaignId)) this.byId.campaign.set(campaignId, currency);
    if (adsetId && !this.byId.adset.has(adsetId)) this.byId.adset.set(adsetId, currency);
  }

  resolve(stored: string, level: Level, id: string, campaignId: string): string {
    return stored || this.byId[level].get(id) || this.byId.campaign.get(campaignId) || this.fallback;
  }
}

export interface SyncItem {
  account: string;
  name: string;
  currency: string;
  state: 'ok' | 'failing' | 'never_synced';
  last_success_at: string | null;
  last_failure_at: string | null;
  last_error: string;
  synced_from: string | null;
  synced_to: string | null;
  synced_ranges: DayRange[];
  covers_range: boolean;
}

export function syncItems(accounts: AccountRow[], from: string, to: string): SyncItem[] {
  return accounts.map((a) => {
    const success = a.last_success_at?.getTime() ?? null;
    const failure = a.last_failure_at?.getTime() ?? null;
    const state = success === null && failure === null ? 'never_synced' : failure !== null && (success === null || failure > success) ? 'failing' : 'ok';
    return {
      account: a.account, name: a.name, currency: a.currency, state,
      last_success_at: a.last_success_at?.toISOString() ?? null, last_failure_at: a.last_failure_at?.toISOString() ?? null,
      last_error: state === 'failing' ? a.last_error : '',
      synced_from: a.synced_from, synced_to: a.synced_to, synced_ranges: a.synced_ranges,
      // Ranges are disjoint and not adjacent (a multirange merges those), so one of them holds the whole range or none does.
      covers_range: a.synced_ranges.some((r) => r.from <= from && r.to >= to),
    };
  });
}
