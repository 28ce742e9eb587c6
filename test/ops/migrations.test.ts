// Upgrades and rollbacks at the migration level: an upgrade's migrations are told before and after (a long backfill
// left only a silent 503 /healthz), and a database with a migration this code lacks is refused before anything runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate, type Migration } from '../../src/db/migrate.ts';
import { freshDatabase } from '../support/db.ts';

const one: Migration = { id: '0001_first', sql: 'CREATE TABLE upgrade_probe (id int)' };
const two: Migration = { id: '0002_second', sql: 'ALTER TABLE upgrade_probe ADD COLUMN note text' };

test('a fresh install is quiet; an upgrade names its migrations first and says how long they took', async () => {
  const db = await freshDatabase('migrations_notice');
  try {
    const told: [string, Record<string, unknown>][] = [];
    const notice = (message: string, fields: Record<string, unknown>) => { told.push([message, fields]); };
    // The fresh database already holds every service migration, so a new owner's first one is an upgrade too:
    // only a database with no migration at all is a fresh install.
    await db.pool.query('DELETE FROM schema_migrations');
    assert.equal(await migrate(db.pool, [{ owner: 'probe', migrations: [one] }], [], notice), ['probe:0001_first']);
    assert.equal(told, []);
    assert.equal(await migrate(db.pool, [{ owner: 'probe', migrations: [one, two] }], [], notice), ['probe:0002_second']);
    assert.equal(told.map(([message]) => message), ['upgrading the database', 'database upgraded']);
    assert.equal(told[0][1], { migrations: ['probe:0002_second'] });
    assert.is(told[1][1].migrations, 1);
    assert.type(told[1][1].duration_ms, 'number');
    assert.equal(await migrate(db.pool, [{ owner: 'probe', migrations: [one, two] }], [], notice), []);
    assert.is(told.length, 2, 'nothing to apply: nothing said');
  } finally {
    await db.drop();
  }
});

test('a migration of a known owner that this code lacks is refused before anything runs; retired ones and other owners are not', async () => {
  const db = await freshDatabase('migrations_newer');
  try {
    await migrate(db.pool, [{ owner: 'probe', migrations: [one] }]);
    await db.pool.query(`INSERT INTO schema_migrations (id) VALUES ('probe:0003_newer'), ('probe:0000_dropped'), ('probe_other:0001_x')`);
    try {
      await migrate(db.pool, [{ owner: 'probe', migrations: [one, two] }], ['probe:0000_dropped']);
      assert.unreachable('a newer database was migrated');
    } catch (error) {
      assert.is((error as Error).message, 'the database was migrated by a newer release of the service (migration probe:0003_newer is not one this release has): start that release or a newer one');
    }
    const { rows } = await db.pool.query(`SELECT 1 FROM schema_migrations WHERE id = 'probe:0002_second'`);
    assert.is(rows.length, 0, 'nothing applied');
    await db.pool.query(`DELETE FROM schema_migrations WHERE id = 'probe:0003_newer'`);
    assert.equal(await migrate(db.pool, [{ owner: 'probe', migrations: [one, two] }], ['probe:0000_dropped']), ['probe:0002_second']);
  } finally {
    await db.drop();
  }
});

test.run();
