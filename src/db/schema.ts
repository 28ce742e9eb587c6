// Every migration of the service, in the order they apply: the event store, infrastructure tables,
// then each projector's tables.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, migrationsIn, type Migration } from './migrate.ts';
import type { Pool } from './pool.ts';
import { projectors } from '../projections/all.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Owners of infrastructure migrations: folders of NNNN_name.sql files, relative to src/. */
const INFRASTRUCTURE: { owner: string; dir: string }[] = [
  { owner: 'eventstore', dir: '../eventstore/migrations' },
  { owner: 'infra', dir: 'migrations' },
  { owner: 'jobs', dir: '../processes/jobs/migrations' },
];

export function allMigrations(): { owner: string; migrations: Migration[] }[] {
  return [
    ...INFRASTRUCTURE.map(({ owner, dir }) => ({ owner, migrations: migrationsIn(path.resolve(here, dir)) })),
    ...projectors.map((p) => ({ owner: `projector:${p.name}`, migrations: p.migrations })),
  ];
}

/**
 * Migrations once on main and then removed: a database that ran them is not a newer release's. Only ever add here.
 * reporting_leads 0004_reporting_lead_levels: replaced within minutes by 0004_reporting_lead_campaigns.
 */
const RETIRED = ['projector:reporting_leads:0004_reporting_lead_levels'];

export function migrateAll(pool: Pool, notice?: (message: string, fields: Record<string, unknown>) => void): Promise<string[]> {
  return migrate(pool, allMigrations(), RETIRED, notice);
}
