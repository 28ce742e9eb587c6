// Read model of the ads each ad account has shown in its spend data, and whether their creative is known.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { AdSpendSynced } from '../../commands/adaccount/spend.ts';
import type { AdCreativeSynced } from '../../commands/adaccount/creative.ts';

/** One statement per spend chunk: each ad once, with the latest day it was seen. */
async function applySpend(tx: Client, d: AdSpendSynced): Promise<void> {
  const latest = new Map<string, string>();
  for (const day of d.days) if ((latest.get(day.ad_id) ?? '') < day.date) latest.set(day.ad_id, day.date);
  if (latest.size === 0) return;
  await tx.query(
    `INSERT INTO ad_catalog (organization_id, account, ad_id, last_seen_date)
     SELECT $1, $2, ad_id, seen::date FROM unnest($3::text[], $4::text[]) AS t(ad_id, seen)
     ON CONFLICT (organization_id, account, ad_id) DO UPDATE SET last_seen_date = GREATEST(ad_catalog.last_seen_date, EXCLUDED.last_seen_date)`,
    [d.organizationId, d.account, [...latest.keys()], [...latest.values()]],
  );
}

async function applyCreative(tx: Client, d: AdCreativeSynced): Promise<void> {
  await tx.query(
    `INSERT INTO ad_catalog (organization_id, account, ad_id, last_seen_date, creative_id, creative_synced_at)
     VALUES ($1, $2, $3, $4::timestamptz::date, $5, $4)
     ON CONFLICT (organization_id, account, ad_id) DO UPDATE SET creative_id = $5, creative_synced_at = $4`,
    [d.organizationId, d.account, d.ad_id, d.syncedAt, d.creative_id],
  );
}

export const adCatalogProjector: Projector = {
  name: 'ad_catalog',
  tables: ['ad_catalog'],
  migrations: migrationsIn(import.meta.dirname),
  handles: ['AdSpendSynced', 'AdCreativeSynced'],
  async apply(tx: Client, events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === 'AdSpendSynced') await applySpend(tx, event.data as AdSpendSynced);
      else if (event.type === 'AdCreativeSynced') await applyCreative(tx, event.data as AdCreativeSynced);
    }
  },
};
