// The organisation's ads, creatives, group tags and ad accounts as the reports read them (~6,000 rows for 2,000 ads,
// read and parsed by every report), kept between reports while the reporting_ads projector, their only writer, has
// applied nothing new: it counts what it applies on its checkpoint row in the same transaction as its tables, and a
// rebuild swaps new tables in. Only for the current read models: a replay "as of" a moment reads its own tables and
// must not come here.
import type { Queryable } from '../../src/db/pool.ts';
import { listAccounts, listAds, listCreativeAds, listGroupTags, type AccountRow, type AdRow, type CreativeAdRow } from './catalog.ts';

/** Shared between reports: read, never changed. */
export interface CatalogRows {
  ads: AdRow[];
  creativeAds: CreativeAdRow[];
  tags: Map<string, string[]>;
  accounts: AccountRow[];
}

export type CatalogReader = (db: Queryable, organizationId: string) => Promise<CatalogRows>;

export const readCatalogRows: CatalogReader = async (db, organizationId) => {
  const [ads, creativeAds, tags, accounts] = await Promise.all([
    listAds(db, organizationId), listCreativeAds(db, organizationId), listGroupTags(db, organizationId), listAccounts(db, organizationId),
  ]);
  return { ads, creativeAds, tags, accounts };
};

/**
 * What changes whenever the tables' rows may have: the events the projector has applied, and the table's identity,
 * new after a rebuild's swap. Not the position, which also moves past the events it passes over (every 200 ms under
 * traffic). Unnamed, so that to_regclass is resolved at each call, never from a plan kept over a swap.
 */
async function catalogVersion(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    "SELECT events_applied || '/' || to_regclass('report_ads')::oid AS version FROM projection_checkpoints WHERE name = 'reporting_ads'",
  );
  return rows[0]?.version ?? '';
}

const MAX_ORGANIZATIONS = 200;

/**
 * A reader that keeps each organisation's rows until the version moves. The version is read first, so the rows
 * kept under it are at least that new: a report never sees less than what the caller's writes already projected.
 */
export function cachedCatalog(read: CatalogReader = readCatalogRows): CatalogReader {
  const kept = new Map<string, { version: string; rows: Promise<CatalogRows> }>();
  return async (db, organizationId) => {
    const version = await catalogVersion(db);
    const hit = kept.get(organizationId);
    kept.delete(organizationId);
    if (hit?.version === version) {
      kept.set(organizationId, hit); // the most recently used last: the first is the one to drop
      return hit.rows;
    }
    const rows = read(db, organizationId);
    kept.set(organizationId, { version, rows });
    if (kept.size > MAX_ORGANIZATIONS) kept.delete(kept.keys().next().value as string);
    rows.catch(() => { if (kept.get(organizationId)?.rows === rows) kept.delete(organizationId); });
    return rows;
  };
}
