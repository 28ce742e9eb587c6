// The event store contract on EventStoreDB: runs when EVENTSTORE_URL is set, else shows as skipped.
import { suite } from 'uvu';
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { registerContract } from './contract.ts';

const url = process.env.EVENTSTORE_URL;

if (url) {
  registerContract({
    name: 'esdb',
    globalEventIds: false,
    atomicAppendMany: false,
    open: async () => new EsdbEventStore(url),
    close: (store) => store.close(),
  });
} else {
  console.log('  SKIPPED: EventStore (esdb) contract: EVENTSTORE_URL is not set');
  const skipped = suite('EventStore (esdb): contract');
  skipped.skip('the EventStoreDB contract (set EVENTSTORE_URL=esdb://... to run it)', () => {});
  skipped.run();
}
