// One page of a keyset list as JSON text, in one row: the read model keeps each item as JSON text, and
// PostgreSQL joins the page's items, so Node receives one value instead of limit + 1 rows to take apart.
import { createHash } from 'node:crypto';
import type { Queryable } from '../src/db/pool.ts';
import { keyset, type Page } from '../src/http/pagination.ts';

/**
 * Between items: a comma and a newline. JSON allows the newline there, and it never occurs inside an
 * item (JSON text escapes it in strings), so the row past the page can be cut off at the last one.
 */
export const ITEM_SEPARATOR = ',\n';

export interface JsonPage {
  /** The page's items as JSON texts joined with ITEM_SEPARATOR (the inside of the data array). */
  items: string;
  /** Whether rows follow this page. */
  hasMore: boolean;
  /** The last item's position (updated_at as the item shows it, id), for the next cursor; null when none follow. */
  last: { updatedAt: string; id: string } | null;
}

export interface JsonPageQuery {
  /** The FROM clause: the read model's table, or keys in list order joined to it. */
  from: string;
  /** The SQL of one item's JSON text, which has the resource's `id` and `updated_at` fields. */
  item: string;
  /** Qualifier of the `updated_at` and `id` columns the page walks in order, such as 'k.' ('' for a lone table). */
  keyAlias?: string;
  /** The list's conditions, with their parameters numbered from 1 in `params`. */
  where: string[];
  params: unknown[];
  /**
   * Keep the statement prepared on the connection. Planning costs more than running a page (several times
   * over for a short one), but a prepared statement soon runs one generic plan for every value: only
   * for conditions where that plan is the right one whatever the values (equalities served by an index
   * in list order, the keyset), never for time ranges whose best plan depends on how many rows match.
   */
  prepared: boolean;
  /**
   * Conditions that split the list into disjoint parts (each with its own parameters in `params`): every
   * part is walked in list order by its own index scan, limited to the page, and the parts are merged.
   * For a filter no index serves in list order as a whole, but each part of it does.
   */
  parts?: string[];
}

/** A row count for the statement's text: only ever a whole number. */
function count(n: number): string {
  if (!Number.isInteger(n) || n < 1) throw new Error(`not a row count: ${n}`);
  return String(n);
}

/** One statement, cheap to plan and to run: no window functions, no per-row filter. */
export async function jsonPage(db: Queryable, query: JsonPageQuery, page: Page): Promise<JsonPage> {
  const { from, item, where, params, keyAlias = '' } = query;
  const ks = keyset(page, params.length + 1, keyAlias);
  const values = [...params, ...ks.params];
  // The row count is written into the text, not passed: with LIMIT $n the generic plan is costed for an
  // unknown count and PostgreSQL keeps planning every execution anew, prepared or not.
  const take = count(page.limit + 1);
  const select = (conditions: string[]) => `SELECT ${item} AS item, ${keyAlias}updated_at AS updated_at, ${keyAlias}id AS id FROM ${from}
           WHERE ${conditions.join(' AND ')} AND ${ks.where} ORDER BY ${ks.orderBy} LIMIT ${take}`;
  // Parts: each one a limited walk in list order, merged (a Merge Append) and limited again.
  const parts = query.parts ?? [];
  const inner = parts.length > 1
    ? `${parts.map((part) => `(${select([...where, part])})`).join(' UNION ALL ')} ORDER BY ${keyset(page, 0).orderBy} LIMIT ${take}`
    : select([...where, ...parts]);
  const text = `SELECT count(*)::int AS found, string_agg(item, E',\\n' ORDER BY ${keyset(page, 0).orderBy}) AS items FROM (${inner}) AS p`;
  // Statement names are per connection and unique per text: a digest of the text (63 bytes at most).
  const name = query.prepared ? `page_${createHash('sha1').update(text).digest('base64url')}` : undefined;
  const { rows } = await db.query<{ found: number; items: string | null }>({ name, text, values });
  const { found, items } = rows[0];
  if (found <= page.limit) return { items: items ?? '', hasMore: false, last: null };
  const kept = items!.slice(0, items!.lastIndexOf(ITEM_SEPARATOR));
  const before = kept.lastIndexOf(ITEM_SEPARATOR);
  const lastItem = JSON.parse(before < 0 ? kept : kept.slice(before + ITEM_SEPARATOR.length)) as { id: string; updated_at: string };
  return { items: kept, hasMore: true, last: { updatedAt: lastItem.updated_at, id: lastItem.id } };
}
