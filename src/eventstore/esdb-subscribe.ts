// Subscribe to $all on EventStoreDB with the port's batch semantics: events buffer while the consumer
// works (the server stream is paused when the buffer is full), batches go out in order, a refused batch
// is offered again, and a dropped server subscription resumes from the last accepted position.
import {
  START as ESDB_START,
  eventTypeFilter,
  excludeSystemEvents,
  type AllStreamSubscription,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import { START, comparePositions, type Position, type RecordedEvent, type SubscribeOptions, type Subscription } from './port.ts';
import { toRecorded } from './esdb-map.ts';

const RETRY_MS = 500;

export function esdbSubscription(client: EventStoreDBClient, options: SubscribeOptions): Subscription {
  const batchSize = options.batchSize ?? 1000;
  const wanted = options.types?.length ? new Set(options.types) : null;
  let accepted: Position = options.after ?? START;
  let buffer: RecordedEvent[] = [];
  let server: AllStreamSubscription | null = null;
  let stopped = false;
  let signal: (() => void) | null = null;
  const poke = () => signal?.();

  const open = () => {
    buffer = [];
    const filter = wanted ? eventTypeFilter({ prefixes: [...wanted] }) : excludeSystemEvents();
    const from = comparePositions(accepted, START) <= 0 ? ESDB_START : accepted;
    const sub = client.subscribeToAll({ fromPosition: from, filter });
    sub.on('data', (resolved) => {
      // A dropped subscription may still flush what it held: the one resumed in its place reads it again.
      if (sub !== server) return;
      const event = toRecorded(resolved);
      // The client's prefix filter is coarse and a resumed subscription may repeat its start.
      if (!event || (wanted && !wanted.has(event.type))) return;
      const last = buffer.length ? buffer[buffer.length - 1].position : accepted;
      if (comparePositions(event.position, last) <= 0) return;
      buffer.push(event);
      if (buffer.length >= batchSize * 2) sub.pause();
      poke();
    });
    // A dropped subscription (an error, or the server ending the call without one) resumes from what
    // was accepted; one that ended silently was left dead before, its consumer waiting for ever.
    const dropped = (error: unknown) => {
      if (stopped || sub !== server) return;
      options.onError?.(error);
      server = null;
      void sub.unsubscribe().catch(() => {});
      setTimeout(() => { if (!stopped && !server) server = open(); }, RETRY_MS);
    };
    sub.on('error', dropped);
    sub.on('end', () => dropped(new Error('EventStoreDB ended the subscription to $all; resuming')));
    return sub;
  };

  const loop = (async () => {
    server = open();
    while (!stopped) {
      if (buffer.length === 0) {
        await new Promise<void>((resolve) => (signal = () => { signal = null; resolve(); }));
        continue;
      }
      const batch = buffer.slice(0, batchSize);
      try {
        await options.onBatch(batch);
      } catch (error) {
        if (stopped) break;
        options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      // The buffer may have been replaced by a resumed subscription meanwhile: drop what was accepted.
      accepted = batch[batch.length - 1].position;
      buffer = buffer.filter((e) => comparePositions(e.position, accepted) > 0);
      if (server?.isPaused() && buffer.length < batchSize) server.resume();
    }
  })();

  return {
    stop: async () => {
      stopped = true;
      poke();
      await server?.unsubscribe().catch(() => {});
      server = null;
      await loop;
    },
  };
}
