import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSecrets } from '../../src/db/secrets.ts';
import { freshDatabase } from '../support/db.ts';

async function refusal(load: Promise<unknown>): Promise<string> {
  try {
    await load;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

test('without SECRET_KEY the encryption key is random, kept in the database and the same for every process', async () => {
  const db = await freshDatabase('secrets_stored');
  try {
    const first = await loadSecrets(db.pool);
    const second = await loadSecrets(db.pool);
    assert.ok(first.encryptionKey.equals(second.encryptionKey));
    assert.is(first.encryptionKey.length, 32);
    assert.match(await refusal(loadSecrets(db.pool, 'set later')), /SECRET_KEY was set after/);
  } finally {
    await db.drop();
  }
});

test('with SECRET_KEY the key is derived, never stored, and another passphrase or none refuses to start', async () => {
  const db = await freshDatabase('secrets_derived');
  try {
    const first = await loadSecrets(db.pool, 'correct horse battery staple');
    const again = await loadSecrets(db.pool, 'correct horse battery staple');
    assert.ok(first.encryptionKey.equals(again.encryptionKey));
    const { rows } = await db.pool.query<{ value: string }>('SELECT value FROM service_secrets');
    assert.not.ok(rows.some((row) => row.value === first.encryptionKey.toString('hex')), 'the derived key is not in the database');
    assert.match(await refusal(loadSecrets(db.pool, 'another passphrase')), /does not open/);
    assert.match(await refusal(loadSecrets(db.pool)), /start every process with the same SECRET_KEY/);
  } finally {
    await db.drop();
  }
});

test.run();
