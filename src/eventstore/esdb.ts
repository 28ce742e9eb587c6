// EventStoreDB adapter (selected by EVENTSTORE_URL). Implementation in progress: see issue 2.
import type { EventStore } from './port.ts';

export class EsdbEventStore {
  constructor(readonly url: string) {
    throw new Error('EventStoreDB adapter not available yet');
  }
}
export type _Check = EventStore;
