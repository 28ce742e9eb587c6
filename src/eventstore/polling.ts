// A subscription over a store that can be read from a position: catch up in batches, then wait for a
// wake-up (or a slow poll) and read again. Batches are handed over one at a time, in order; a batch the
// consumer rejects is offered again, never skipped.
import { START, type Position, type RecordedEvent, type SubscribeOptions, type Subscription } from './port.ts';

export interface Wakeable {
  /** Register a callback run when new events may be visible; returns its removal. */
  onWake(callback: () => void): () => void;
}

const FIRST_IDLE_MS = 10;
const RETRY_AFTER_ERROR_MS = 500;

export function pollingSubscription(
  read: (after: Position, maxCount: number) => Promise<RecordedEvent[]>,
  source: Wakeable,
  options: SubscribeOptions,
  pollMs: number,
): Subscription {
  const batchSize = options.batchSize ?? 1000;
  // A type filter is applied here, over every position read: the reader moves past events it skips
  // (a server-side filter that found nothing would scan the same tail again on every wake-up).
  const wanted = options.types?.length ? new Set(options.types) : null;
  let after = options.after ?? START;
  let stopped = false;
  let wake: (() => void) | null = null;
  let idle = FIRST_IDLE_MS;
  // A wake-up since the last read was issued: what it announced may be after what that read saw.
  let woken = false;
  const removeWaker = source.onWake(() => {
    woken = true;
    wake?.();
  });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(() => { wake = null; resolve(); }, ms);
      wake = () => { clearTimeout(timer); wake = null; idle = FIRST_IDLE_MS; resolve(); };
    });
  const readNext = (position: Position) => {
    woken = false;
    return read(position, batchSize);
  };

  const loop = (async () => {
    // While catching up, the next batch is read while the consumer handles the current one.
    let next: Promise<RecordedEvent[]> | null = null;
    while (!stopped) {
      try {
        const batch = await (next ?? readNext(after));
        next = null;
        if (batch.length > 0) {
          const last = batch[batch.length - 1].position;
          const full = batch.length === batchSize;
          if (full) {
            next = readNext(last);
            // Observed now: a failure surfaces when the batch is awaited, not as an unhandled rejection.
            next.catch(() => {});
          }
          const handed = wanted ? batch.filter((e) => wanted.has(e.type)) : batch;
          if (handed.length > 0) await options.onBatch(handed);
          after = last;
          idle = FIRST_IDLE_MS;
          // A short batch was everything visible when it was read: read again on the next wake-up (at once
          // if one came meanwhile), or after the first idle pause, not straight away for nothing.
          if (!full) await pause(idle);
          continue;
        }
      } catch (error) {
        // The prefetched batch followed a batch that was not accepted: drop it and read again.
        await next?.catch(() => {});
        next = null;
        if (stopped) break;
        options.onError?.(error);
        await pause(RETRY_AFTER_ERROR_MS);
        continue;
      }
      // Nothing visible yet: wait for a wake-up, backing off towards the safety-net poll, since a
      // committed event may still sit behind an older running transaction.
      await pause(idle);
      idle = Math.min(idle * 2, pollMs);
    }
    await next?.catch(() => {});
  })();

  return {
    stop: async () => {
      stopped = true;
      removeWaker();
      wake?.();
      await loop;
    },
  };
}
