// Names of campaigns, ad sets and ads as events last gave them; each reporting projector keeps its own table.
import type { Queryable } from '../../src/db/pool.ts';
import type { AdSource } from '../../commands/lead/lead.ts';

export interface NameRow {
  organizationId: string;
  level: 'campaign' | 'adset' | 'ad';
  id: string;
  name: string;
}

/** The names kept, upserted; one that did not change is not written again (every batch names the same few thousand ads). */
export async function saveNames(db: Queryable, table: 'report_lead_names' | 'report_ad_names', names: LatestNames): Promise<void> {
  const rows = names.rows();
  if (!rows.length) return;
  await db.query(
    `INSERT INTO ${table} AS n (organization_id, level, id, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
     ON CONFLICT (organization_id, level, id) DO UPDATE SET name = excluded.name WHERE n.name <> excluded.name`,
    [rows.map((r) => r.organizationId), rows.map((r) => r.level), rows.map((r) => r.id), rows.map((r) => r.name)],
  );
}

/** One organisation's newest names by level and id. */
export interface LevelNames {
  campaign: Map<string, string>;
  adset: Map<string, string>;
  ad: Map<string, string>;
}

/**
 * The newest name of every campaign, ad set and ad of a batch (or of a whole rebuild, written once at its end), per
 * organisation: a few map reads per row, no key text or row object made for a name that did not change.
 */
export class LatestNames {
  private readonly byOrganization = new Map<string, LevelNames>();

  of(organizationId: string): LevelNames {
    let names = this.byOrganization.get(organizationId);
    if (!names) this.byOrganization.set(organizationId, (names = { campaign: new Map(), adset: new Map(), ad: new Map() }));
    return names;
  }

  rows(): NameRow[] {
    const rows: NameRow[] = [];
    for (const [organizationId, names] of this.byOrganization) {
      for (const level of ['campaign', 'adset', 'ad'] as const) {
        for (const [id, name] of names[level]) rows.push({ organizationId, level, id, name });
      }
    }
    return rows;
  }
}

/** The three names an ad's source data carries, kept when set and changed. */
export function noteNames(names: LevelNames, ad: Pick<AdSource, 'campaign_id' | 'campaign_name' | 'adset_id' | 'adset_name' | 'ad_id' | 'ad_name'>): void {
  keepName(names.campaign, ad.campaign_id, ad.campaign_name);
  keepName(names.adset, ad.adset_id, ad.adset_name);
  keepName(names.ad, ad.ad_id, ad.ad_name);
}

function keepName(names: Map<string, string>, id: string, name: string): void {
  if (id && name && names.get(id) !== name) names.set(id, name);
}
