// Read model of background jobs: one row per job with every field of the specification's Job.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Client } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';
import type { JobEvent } from '../../commands/job/job.ts';

const KEY = 'WHERE organization_id = $1 AND number = $2';

async function applyJobEvent(tx: Client, event: JobEvent): Promise<void> {
  const { organizationId: org, number } = event.data;
  switch (event.type) {
    case 'JobQueued': {
      const d = event.data;
      await tx.query(
        `INSERT INTO jobs (organization_id, number, kind, label, scope, status, priority, trigger, run_after, created, updated_at, reads_from_day)
         VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $9, $10) ON CONFLICT (organization_id, number) DO NOTHING`,
        [org, number, d.kind, d.label, d.scope, d.priority, d.trigger, d.runAfter, d.queuedAt, typeof d.params?.since === 'string'],
      );
      return;
    }
    case 'JobStarted':
      await tx.query(`UPDATE jobs SET status = 'running', attempts = $3, started_at = $4, finished_at = NULL, updated_at = $4 ${KEY}`,
        [org, number, event.data.attempt, event.data.startedAt]);
      return;
    case 'JobProgressed':
      await tx.query(`UPDATE jobs SET progress_done = $3, progress_text = $4, updated_at = $5 ${KEY}`,
        [org, number, event.data.done, event.data.text, event.data.at]);
      return;
    case 'JobSucceeded':
      await tx.query(`UPDATE jobs SET status = 'done', summary = $3, error = '', finished_at = $4, updated_at = $4 ${KEY}`,
        [org, number, event.data.summary, event.data.finishedAt]);
      return;
    case 'JobFailed':
      await tx.query(`UPDATE jobs SET status = 'failed', error = $3, attempts = $4, finished_at = $5, updated_at = $5 ${KEY}`,
        [org, number, event.data.error, event.data.attempts, event.data.finishedAt]);
      return;
    case 'JobRetryScheduled':
      await tx.query(`UPDATE jobs SET status = 'queued', error = $3, attempts = $4, run_after = $5, updated_at = $6 ${KEY}`,
        [org, number, event.data.error, event.data.attempts, event.data.runAfter, event.data.at]);
      return;
    case 'JobCancelled':
      await tx.query(`UPDATE jobs SET status = 'cancelled', finished_at = $3, updated_at = $3 ${KEY}`, [org, number, event.data.at]);
      return;
    default: {
      const _never: never = event;
    }
  }
}

export const jobsProjector: Projector = {
  name: 'jobs',
  tables: ['jobs'],
  migrations: migrationsIn(import.meta.dirname),
  handles: ['JobQueued', 'JobStarted', 'JobProgressed', 'JobSucceeded', 'JobFailed', 'JobRetryScheduled', 'JobCancelled'],
  async apply(tx: Client, events: RecordedEvent[]): Promise<void> {
    for (const event of events) await applyJobEvent(tx, { type: event.type, data: event.data } as JobEvent);
  },
};
