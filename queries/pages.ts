// Connected platform pages: which organisation a page's leads belong to, and its sealed token.
import type { Queryable } from '../src/db/pool.ts';

export interface PageRow {
  page_id: string;
  organization_id: string;
  token_ciphertext: string;
}

/**
 * The one lookup not scoped by organisation: the leadgen webhook names only the page, and this is how
 * the service learns whose lead it is.
 */
export async function pageOwner(db: Queryable, pageId: string): Promise<PageRow | null> {
  const { rows } = await db.query<PageRow>('SELECT page_id, organization_id, token_ciphertext FROM platform_pages WHERE page_id = $1', [pageId]);
  return rows[0] ?? null;
}

export async function pageOfOrganization(db: Queryable, organizationId: string, pageId: string): Promise<PageRow | null> {
  const { rows } = await db.query<PageRow>(
    'SELECT page_id, organization_id, token_ciphertext FROM platform_pages WHERE organization_id = $1 AND page_id = $2',
    [organizationId, pageId],
  );
  return rows[0] ?? null;
}

export interface DueFetch {
  organization_id: string;
  lead_id: string;
  platform_lead_id: string;
  platform_form_id: string;
  page_id: string;
  attempts: number;
}

/**
 * Due lead fetches of every organisation (a worker queue), locked for the caller's transaction;
 * rows another worker holds are skipped.
 */
export async function claimDueFetches(db: Queryable, now: Date, limit: number): Promise<DueFetch[]> {
  const { rows } = await db.query<DueFetch>(
    `SELECT organization_id, lead_id, platform_lead_id, platform_form_id, page_id, attempts FROM lead_fetches
     WHERE next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}
