// Spend, delivery and creatives for the campaign and creative reports: ad accounts with their sync state,
// daily spend facts per ad with 7- and 56-day roll-ups, each ad's creative group, and the groups' tags.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client, Queryable } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector, ReplayWriter } from '../../src/projections/projector.ts';
import type { CreativeTagged } from '../../commands/creativegroup/creativegroup.ts';
import type { AdAccountConnected } from '../../commands/adaccount/adaccount.ts';
import type { AdSpendEvent, AdSpendSynced } from '../../commands/adaccount/spend.ts';
import { creativeGroupOf, type AdCreativeSynced } from '../../commands/adaccount/creative.ts';
import { applySpend } from './spend.ts';
import { SpendReplay } from './replay.ts';

type SpendData<T extends AdSpendEvent['type']> = Extract<AdSpendEvent, { type: T }>['data'];

const HANDLES = ['AdAccountConnected', 'AdSpendSynced', 'AdSpendSyncSucceeded', 'AdSpendSyncFailed', 'AdCreativeSynced', 'CreativeTagged'] as const;
type Handled = (typeof HANDLES)[number];

async function applyAccountEvent(db: Queryable, type: Handled, data: unknown): Promise<void> {
  switch (type) {
    case 'AdAccountConnected': {
      const d = data as AdAccountConnected;
      await db.query(
        `INSERT INTO report_accounts (organization_id, account, name, currency, connected_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (organization_id, account) DO UPDATE SET name = $3, currency = $4, connected_at = $5`,
        [d.organizationId, d.account, d.name, d.currency, d.connectedAt],
      );
      return;
    }
    case 'AdSpendSynced': {
      const d = data as AdSpendSynced;
      await db.query(
        `INSERT INTO report_accounts (organization_id, account, currency) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, account) DO UPDATE SET currency = $3`,
        [d.organizationId, d.account, d.currency],
      );
      return;
    }
    case 'AdSpendSyncSucceeded': {
      const d = data as SpendData<'AdSpendSyncSucceeded'>;
      await db.query(
        // synced_days: the union of the windows synced (a 0-row window counts: the platform had no spend
        // there); synced_from/synced_to: its first and last day.
        `INSERT INTO report_accounts AS a (organization_id, account, last_success_at, synced_from, synced_to, last_rows, synced_days)
         VALUES ($1, $2, $3, $4, $5, $6, datemultirange(daterange(LEAST($4::date, $5::date), GREATEST($4::date, $5::date), '[]')))
         ON CONFLICT (organization_id, account) DO UPDATE SET last_success_at = $3, last_rows = $6,
           synced_from = LEAST(a.synced_from, $4::date), synced_to = GREATEST(a.synced_to, $5::date),
           synced_days = COALESCE(a.synced_days, '{}'::datemultirange) + datemultirange(daterange(LEAST($4::date, $5::date), GREATEST($4::date, $5::date), '[]'))`,
        [d.organizationId, d.account, d.at, d.since, d.until, d.rows],
      );
      return;
    }
    case 'AdSpendSyncFailed': {
      const d = data as SpendData<'AdSpendSyncFailed'>;
      await db.query(
        `INSERT INTO report_accounts (organization_id, account, last_failure_at, last_error) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, account) DO UPDATE SET last_failure_at = $3, last_error = $4`,
        [d.organizationId, d.account, d.at, d.error],
      );
      return;
    }
    case 'AdCreativeSynced':
    case 'CreativeTagged':
      return applyCreativeEvent(db, type, data);
    default: {
      const _never: never = type;
    }
  }
}

async function applyCreativeEvent(db: Queryable, type: 'AdCreativeSynced' | 'CreativeTagged', data: unknown): Promise<void> {
  if (type === 'CreativeTagged') {
    const d = data as CreativeTagged;
    await db.query(
      `INSERT INTO report_creative_tags (organization_id, group_id, tags, tagged_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, group_id) DO UPDATE SET tags = $3, tagged_at = $4`,
      [d.organizationId, d.groupId, d.tags, d.taggedAt],
    );
    return;
  }
  const d = data as AdCreativeSynced;
  await db.query(
    `INSERT INTO report_creative_ads (organization_id, ad_id, account, group_id, creative_id, format, thumbnail_url, title, body, synced_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (organization_id, ad_id) DO UPDATE SET account = $3, group_id = $4, creative_id = $5, format = $6,
       thumbnail_url = $7, title = $8, body = $9, synced_at = $10`,
    [d.organizationId, d.ad_id, d.account, creativeGroupOf(d), d.creative_id, d.format ?? '', d.thumbnail_url ?? '', d.title ?? '', d.body ?? '', d.syncedAt],
  );
}

type SpendWriter = (db: Client, events: AdSpendSynced[]) => Promise<void>;

/** Spend days of the whole batch (with their ads and names) go in a few set-based statements; the rarer events one statement each, in order. */
async function applyBatch(tx: Client, events: RecordedEvent[], writeSpend: SpendWriter = applySpend): Promise<void> {
  await writeSpend(tx, events.filter((e) => e.type === 'AdSpendSynced').map((e) => e.data as AdSpendSynced));
  for (const event of events) await applyAccountEvent(tx, event.type as Handled, event.data);
}

/** A rebuild stages the spend days and derives the facts once at the end; the other events as live. */
function replay(): ReplayWriter {
  const spend = new SpendReplay();
  return {
    start: (tx) => spend.start(tx),
    apply: (tx, events) => applyBatch(tx, events, (db, syncs) => spend.stage(db, syncs)),
    finish: (tx) => spend.finish(tx),
  };
}

export const reportingAdsProjector: Projector = {
  name: 'reporting_ads',
  tables: ['report_accounts', 'report_spend_facts', 'report_spend_levels', 'report_ads', 'report_ad_names', 'report_creative_ads', 'report_creative_tags'],
  migrations: migrationsIn(import.meta.dirname),
  handles: HANDLES,
  apply: (tx, events) => applyBatch(tx, events),
  replay,
};
