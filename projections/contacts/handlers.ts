// Handler maps of the contacts read model: several maps may handle the same event type.
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';

export type Handlers = Record<string, (tx: Client, event: RecordedEvent) => Promise<void>>;

/** apply() over several maps, in map order for each event, events in global order. */
export function applyAll(maps: Handlers[]) {
  return async (tx: Client, events: RecordedEvent[]): Promise<void> => {
    for (const event of events) {
      for (const map of maps) {
        const handler = map[event.type];
        if (handler) await handler(tx, event);
      }
    }
  };
}

export const handledBy = (maps: Handlers[]) => [...new Set(maps.flatMap((m) => Object.keys(m)))];
