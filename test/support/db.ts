// One database per test file on the shared embedded PostgreSQL that test/run.ts started.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { migrateAll } from '../../src/db/schema.ts';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_PG_URL;
  if (!url) throw new Error('TEST_PG_URL is not set: run the tests with `npm test`');
  return url;
}

export function urlForDatabase(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh, migrated database. */
export async function freshDatabase(label = 'test'): Promise<TestDatabase> {
  const name = `t_${label.replace(/\W/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = urlForDatabase(name);
  const pool = createPool(url, 10);
  await migrateAll(pool);
  return {
    url,
    pool,
    drop: async () => {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
