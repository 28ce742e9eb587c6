// Leads received several at a time, in one person's order: a lead waits for the earlier leads that share its
// platform id, phone or e-mail, so a person's leads still make, link and reopen cycles in the order given,
// while unrelated leads overlap their round trips to the store. Used by the bulk imports (CLI and job).
import type { PlatformLead } from '../../src/platform/leads.ts';
import { leadKeys } from './person.ts';

/** What ties a lead to others: its platform id and the keys its person is matched by. */
export function laneKeys(lead: PlatformLead, phoneCountryCode: string): string[] {
  const { phone, email } = leadKeys(lead, phoneCountryCode);
  const keys = [`lead:${lead.platformLeadId}`];
  if (phone.hash) keys.push(`phone:${phone.hash}`);
  if (email.hash) keys.push(`email:${email.hash}`);
  return keys;
}

/**
 * Runs `work` for each item, at most `width` at once (waiting ones count), each once the earlier items sharing one
 * of its keys are done. The first failure stops the rest: nothing more starts, what runs ends, then it is thrown.
 */
export async function inLanes<T>(
  items: AsyncIterable<T> | Iterable<T>, width: number, keysOf: (item: T) => string[], work: (item: T) => Promise<void>,
): Promise<void> {
  const tails = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();
  let failure = null as { error: unknown } | null; // set from the tasks
  try {
    for await (const item of items) {
      while (running.size >= width) await Promise.race(running);
      if (failure) break;
      const keys = keysOf(item);
      const before = keys.map((k) => tails.get(k)).filter((p) => p !== undefined);
      const task: Promise<void> = Promise.all(before)
        .then(() => (failure ? undefined : work(item)))
        .catch((error: unknown) => { failure ??= { error }; })
        .finally(() => {
          running.delete(task);
          for (const key of keys) if (tails.get(key) === task) tails.delete(key);
        });
      running.add(task);
      for (const key of keys) tails.set(key, task);
    }
  } finally {
    // Nothing is left writing when the caller reports the outcome, even when reading the items failed.
    await Promise.all(running);
  }
  if (failure) throw failure.error;
}
