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
 * Due lead fetches of every organisation (a worker queue), claimed until `until`: their next attempt moves there, in
 * one statement, so no other worker takes them meanwhile and no transaction stays open while the platform answers.
 * The recorded outcome sets the row's next attempt again (or removes the row).
 */
export async function claimDueFetches(db: Queryable, now: Date, limit: number, until: Date): Promise<DueFetch[]> {
  const { rows } = await db.query<DueFetch>(
    `UPDATE lead_fetches f SET next_attempt_at = $3
       FROM (SELECT organization_id, lead_id FROM lead_fetches WHERE next_attempt_at <= $1
             ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
      WHERE f.organization_id = due.organization_id AND f.lead_id = due.lead_id
     RETURNING f.organization_id, f.lead_id, f.platform_lead_id, f.platform_form_id, f.page_id, f.attempts`,
    [now, limit, until],
  );
  return rows;
}
