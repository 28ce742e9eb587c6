// Numbered migrations, each applied once in its own transaction, under an advisory lock so that
// several processes starting together do not race.
import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from './pool.ts';

export interface Migration {
  /** Unique and ordered within its owner, e.g. "0001_eventstore". */
  id: string;
  sql: string;
}

const MIGRATION_LOCK = 7_100_001;

/** The NNNN_name.sql files of a folder, in order. */
export function migrationsIn(dir: string): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * Refuses a database that a newer release has migrated (an applied migration of one of these owners that this code
 * does not have, other than the `retired` ones it dropped on purpose): that release's read models are not this one's,
 * and an older release started on them answered 500 on every request that met a changed table (a rollback).
 */
export async function migrate(
  pool: Pool, owners: { owner: string; migrations: Migration[] }[], retired: string[] = [],
  /** Told before and after the migrations of an upgrade (a database that already had some), which may take a while. */
  notice: (message: string, fields: Record<string, unknown>) => void = () => {},
): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ id: string }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => r.id));
    const ours = owners.flatMap(({ owner, migrations }) => migrations.map((m) => `${owner}:${m.id}`));
    const known = new Set([...retired, ...ours]);
    const newer = rows.map((r) => r.id).filter((id) => !known.has(id) && owners.some(({ owner }) => id.startsWith(`${owner}:`))).sort();
    if (newer.length > 0) {
      throw new Error(`the database was migrated by a newer release of the service (migration ${newer.join(', ')} is not one this release has): start that release or a newer one`);
    }
    const pending = ours.filter((id) => !done.has(id));
    const upgrade = done.size > 0 && pending.length > 0;
    const started = Date.now();
    if (upgrade) notice('upgrading the database', { migrations: pending });
    for (const { owner, migrations } of owners) {
      for (const migration of migrations) {
        const id = `${owner}:${migration.id}`;
        if (done.has(id)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (id) VALUES ($1)', [id]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${id} failed: ${(error as Error).message}`);
        }
        applied.push(id);
      }
    }
    if (upgrade) notice('database upgraded', { migrations: applied.length, duration_ms: Date.now() - started });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}
