// The creative sync's worklist: ads of an account whose creative is unknown or older than a cut-off.
import type { Queryable } from '../src/db/pool.ts';

export async function adsNeedingCreatives(db: Queryable, organizationId: string, account: string, staleBefore: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ ad_id: string }>(
    `SELECT ad_id FROM ad_catalog
     WHERE organization_id = $1 AND account = $2 AND (creative_synced_at IS NULL OR creative_synced_at < $3)
     ORDER BY creative_synced_at NULLS FIRST, last_seen_date DESC, ad_id LIMIT $4`,
    [organizationId, account, staleBefore, limit],
  );
  return rows.map((r) => r.ad_id);
}
