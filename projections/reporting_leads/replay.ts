// Lead facts in a rebuild: the replay keeps the lead rows only (as apply() does, without the fact
// differences), and finish() derives every cohort cell once from the final lead rows: the same sums
// contributions() gives, at each grain, in one INSERT ... SELECT instead of three upserted cells per
// lead and batch.
import type { Queryable } from '../../src/db/pool.ts';

const bucket = `day - (((day - DATE '2001-01-01') % g.grain + g.grain) % g.grain)`;

/*
 * contributions() in SQL: a lead counts once in its ad's currency (''), with its revenue when the sale
 * named no currency; a sale in a named currency adds a revenue-only cell in that currency. A cell whose
 * sums are all zero is not written (apply() never writes a cell that did not change).
 */
const FACTS_SQL = `
INSERT INTO report_lead_facts (organization_id, grain, bucket, organic, campaign_id, adset_id, ad_id, currency,
                               leads, qualified, rejected, sales, revenue)
SELECT organization_id, g.grain, ${bucket}, organic, campaign_id, adset_id, ad_id, currency,
       sum(leads), sum(qualified), sum(rejected), sum(sales), sum(revenue)
FROM (
  SELECT organization_id, day, organic, campaign_id, adset_id, ad_id, '' AS currency, 1 AS leads, qualified::int AS qualified,
         (stage = 'rejected')::int AS rejected, (stage = 'sold')::int AS sales,
         CASE WHEN stage = 'sold' AND sale_currency = '' THEN coalesce(sale_value, 0) ELSE 0 END AS revenue
  FROM report_leads WHERE day IS NOT NULL
  UNION ALL
  SELECT organization_id, day, organic, campaign_id, adset_id, ad_id, sale_currency, 0, 0, 0, 0, sale_value
  FROM report_leads WHERE day IS NOT NULL AND stage = 'sold' AND sale_value IS NOT NULL AND sale_currency <> ''
) AS c CROSS JOIN (VALUES (1), (7), (56)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
HAVING sum(leads) <> 0 OR sum(qualified) <> 0 OR sum(rejected) <> 0 OR sum(sales) <> 0 OR sum(revenue) <> 0
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;

export async function deriveLeadFacts(db: Queryable): Promise<void> {
  // The aggregate of every lead fits in memory; for this transaction only.
  await db.query(`SELECT set_config('work_mem', '512MB', true)`);
  await db.query(FACTS_SQL);
}
