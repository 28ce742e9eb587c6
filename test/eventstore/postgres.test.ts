// The event store contract on PostgreSQL, each suite on a fresh database.
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { registerContract } from './contract.ts';

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
