// A rebuild's bulk load: a table's primary key dropped before the rows go in and built once after them,
// cheaper than keeping the index up to date row by row.
import type { Client } from '../../src/db/pool.ts';

/** Drops the table's primary key; returns the statement that puts it back as the migrations defined it. */
export async function dropPrimaryKey(db: Client, table: string): Promise<string> {
  const { rows } = await db.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  if (!rows.length) return `SELECT 1`;
  await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${rows[0].name}`);
  return `ALTER TABLE ${table} ADD CONSTRAINT ${rows[0].name} ${rows[0].definition}`;
}
