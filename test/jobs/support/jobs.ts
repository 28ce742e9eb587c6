// Helpers of the job tests: an engine with test job kinds, waiting for jobs to finish or match, a job's events.
import type { Services } from '../../../src/services.ts';
import { JobEngine, type EngineOptions } from '../../../src/processes/jobs/engine.ts';
import { jobStream } from '../../../commands/job/job.ts';
import { toJob } from '../../../src/routes/jobs.ts';
import type { JobRow } from '../../../queries/jobs.ts';
import { eventually } from '../../support/eventually.ts';

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

/** Every job of the organisation as GET /jobs shows it, read from the read model (polling HTTP would hit the rate limit). */
export async function jobsOf(services: Services, organizationId: string): Promise<ReturnType<typeof toJob>[]> {
  const { rows } = await services.pool.query<JobRow>(
    `SELECT *, lpad(number::text, 10, '0') AS id FROM jobs WHERE organization_id = $1 ORDER BY updated_at DESC, number DESC`, [organizationId]);
  return rows.map(toJob);
}

/** Waits until `count` jobs of the kind have finished (done or failed); newest change first. */
export async function finishedJobs(services: Services, organizationId: string, kind: string, count: number, timeoutMs = 30_000) {
  return eventually(`${count} finished ${kind} jobs`, async () => {
    const jobs = (await jobsOf(services, organizationId)).filter((j) => j.kind === kind && (j.status === 'done' || j.status === 'failed'));
    return jobs.length >= count ? jobs : undefined;
  }, timeoutMs);
}

/** Waits until the job matches, polling the read model; returns it as the API shows it. */
export async function jobWhen(services: Services, organizationId: string, number: number, ready: (job: ReturnType<typeof toJob>) => boolean) {
  return eventually(`job ${number}`, async () => {
    const job = (await jobsOf(services, organizationId)).find((j) => j.number === number);
    return job && ready(job) ? job : undefined;
  });
}
