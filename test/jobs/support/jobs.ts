// Helpers of the job tests: an engine with test job kinds, waiting for a condition, a job's events.
import type { Services } from '../../../src/services.ts';
import { JobEngine, type EngineOptions } from '../../../src/processes/jobs/engine.ts';
import { jobStream } from '../../../commands/job/job.ts';

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function startEngine(services: Services, options: EngineOptions): Promise<JobEngine> {
  const engine = new JobEngine(services, { pollMs: 50, ...options });
  await engine.start();
  return engine;
}

export async function jobEvents(services: Services, organizationId: string, number: number): Promise<{ type: string; data: any }[]> {
  const events = await services.store.readStream(jobStream(organizationId, number));
  return events.map((e) => ({ type: e.type, data: e.data as any }));
}

/** A promise with its resolve function, for handlers the test releases. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => { open = resolve; });
  return { promise, open };
}
