// GET /jobs and GET /jobs/{number}: the organisation's background jobs from the jobs read model.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { closePage, decimalInteger, listEnvelope, listQuery, openPage, wholeNumber } from '../http/pagination.ts';
import { getJob, jobPosition, listJobs, type JobRow } from '../../queries/jobs.ts';
import { ApiError } from '../../commands/shared/errors.ts';

const STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
const time = z.iso.datetime();

export const Job = z.object({
  number: z.number().int().describe('Job number within the organisation'),
  kind: z.string().describe('Job kind: lead_import, ad_spend, creative_sync, sheets_sync'),
  label: z.string().describe('Description'),
  status: z.enum(STATUSES),
  priority: z.enum(['user', 'background']),
  trigger: z.string().describe('What started it: schedule, webhook, operator, api, connect, follow_up'),
  progress: z.object({ done: z.number().int(), text: z.string() }),
  attempts: z.number().int(),
  error: z.string().describe('Error text of a failed job (the last error while it is retried)'),
  summary: z.string().describe('Result summary'),
  run_after: time.nullable().describe('Not before'),
  started_at: time.nullable(),
  finished_at: time.nullable(),
  created: time.describe('Creation time'),
  updated_at: time,
}).meta({ id: 'Job' });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toJob(row: JobRow): z.infer<typeof Job> {
  return {
    number: row.number, kind: row.kind, label: row.label, status: row.status, priority: row.priority, trigger: row.trigger,
    progress: { done: row.progress_done, text: row.progress_text }, attempts: row.attempts, error: row.error, summary: row.summary,
    run_after: iso(row.run_after), started_at: iso(row.started_at), finished_at: iso(row.finished_at),
    created: row.created.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

export const listJobsRoute = defineRoute({
  method: 'get',
  path: '/jobs',
  scope: 'jobs:read',
  summary: 'List background jobs (lead imports, spend syncs, sheet syncs, creative syncs)',
  tag: 'Jobs',
  query: listQuery({ status: z.enum(STATUSES).optional().describe('Only jobs in this status') }),
  success: { status: 200, schema: listEnvelope(Job), description: 'A page of jobs' },
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'jobs', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const rows = await listJobs(services.pool, caller.organizationId, page, { status: query.status });
    return { status: 200, body: closePage(rows, page, services.secrets.cursorKey, jobPosition, toJob) };
  },
});

export const getJobRoute = defineRoute({
  method: 'get',
  path: '/jobs/:number',
  scope: 'jobs:read',
  summary: 'Get one background job by its number',
  tag: 'Jobs',
  // Any whole number is a job number that may or may not exist: 0 or -1 is 404 like 999999, not 400.
  params: z.object({ number: z.preprocess(decimalInteger, wholeNumber()).describe('Job number') }).strict(),
  query: z.object({}).strict(),
  success: { status: 200, schema: Job, description: 'The job' },
  errors: ['not_found'],
  handler: async ({ params, caller, services }) => {
    const inRange = params.number >= 1 && params.number <= 2_147_483_647;
    const row = inRange ? await getJob(services.pool, caller.organizationId, params.number) : null;
    // Past 2^53 the number read is not the one sent (99999999999999999999 reads 1e20): not echoed then.
    if (!row) throw new ApiError('not_found', Number.isSafeInteger(params.number) ? { number: params.number } : undefined);
    return { status: 200, body: toJob(row) };
  },
});
