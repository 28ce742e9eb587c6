// The event store contract on PostgreSQL, each suite on a fresh database.
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { META, registerContract } from './contract.ts';

const databases = new Map<EventStore, TestDatabase>();

registerContract({
  name: 'postgres',
  globalEventIds: true,
  atomicAppendMany: true,
  async open() {
    const db = await freshDatabase('es_contract');
    const store = new PostgresEventStore(db.pool, db.url);
    databases.set(store, db);
    return store;
  },
  async close(store) {
    await store.close();
    await databases.get(store)?.drop();
    databases.delete(store);
  },
});

test('readAll with dataKeys: the types named come with just those keys (an absent one as null) and no metadata; the others whole', async () => {
  const db = await freshDatabase('es_data_keys');
  const store = new PostgresEventStore(db.pool, db.url);
  try {
    const stream = `data_keys-${randomUUID().slice(0, 8)}`;
    await store.append(stream, [
      { type: 'Slim', data: { keep: 1, "it's": { nested: [true] }, gone: 'x', nothing: null } },
      { type: 'Whole', data: { keep: 2, gone: 'y' } },
    ], 'no_stream', META);
    const read = await store.readAll({ types: ['Slim', 'Whole'], dataKeys: { Slim: ['keep', "it's", 'nothing', 'absent'] } });
    assert.equal(read.map((e) => e.data), [{ keep: 1, "it's": { nested: [true] }, nothing: null, absent: null }, { keep: 2, gone: 'y' }]);
    assert.equal(read.map((e) => e.metadata), [{ organizationId: null }, META]);
    // The rest of each event as without the option.
    const whole = await store.readAll({ types: ['Slim', 'Whole'] });
    assert.equal(read.map(({ id, stream, revision, position, createdAt }) => ({ id, stream, revision, position, createdAt })),
      whole.map(({ id, stream, revision, position, createdAt }) => ({ id, stream, revision, position, createdAt })));
  } finally {
    await store.close();
    await db.drop();
  }
});

test.run();
