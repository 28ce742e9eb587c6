// `ops jobs enqueue | list | cancel`: background jobs from the operator's side of the service.
import { cancelJob, enqueueJob } from '../src/processes/jobs/enqueue.ts';
import { isJobKind, JOB_KINDS, scopeOf, scopeSortOf, type JobKind } from '../commands/job/kinds.ts';
import { listJobs } from '../queries/jobs.ts';
import { openPage } from '../src/http/pagination.ts';
import { toJob } from '../src/routes/jobs.ts';
import { loadAggregate } from '../src/eventstore/handle.ts';
import { ApiError } from '../commands/shared/errors.ts';
import { requireOrganization } from '../commands/organization/handlers.ts';
import { loadAdAccount } from '../commands/adaccount/handlers.ts';
import { pageAggregate, pageStream } from '../commands/page/page.ts';
import { readSource } from '../commands/source/handlers.ts';
import { dayIn, isDay, spendRange } from '../src/processes/jobs/kinds/days.ts';
import { JobError } from '../src/processes/jobs/handler.ts';
import { CliError, existingOrganization, platformAccount, platformNumber, positional, positiveInteger, required, type CliContext, type CommandGroup } from './context.ts';

const STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'];

interface Target { sort: 'account' | 'page' | 'source'; id: string; scope: string }

const SORTS = ['account', 'page', 'source'] as const;

function targetFor(ctx: CliContext, kind: JobKind): Target {
  const sort = scopeSortOf(kind);
  // `lead_import --page 1 --account act_2` must not quietly drop the account: each kind works on one sort.
  const other = SORTS.find((s) => s !== sort && ctx.options[s] !== undefined);
  if (other) throw new CliError(`${kind} works on --${sort}, not --${other}`);
  const value = ctx.options[sort];
  if (value === undefined || value === 'true' || value === '') throw new CliError(`${kind} needs --${sort}`);
  if (sort === 'account') {
    const account = platformAccount(value);
    return { sort, id: account, scope: scopeOf.account(account) };
  }
  if (sort === 'page') return { sort, id: platformNumber(value, 'page', 'page id'), scope: scopeOf.page(value) };
  return { sort, id: value, scope: scopeOf.source(value) };
}

/**
 * A job for an organisation that does not exist, or for an account, page or source it does not have, could
 * only fail when it runs: refused here instead, so the command changes nothing (exit code 2).
 */
async function checkTarget(ctx: CliContext, organizationId: string, kind: JobKind, target: Target, params: Record<string, unknown>): Promise<void> {
  const { store } = ctx.services;
  await requireOrganization(store, organizationId);
  if (target.sort === 'account') {
    const account = await loadAdAccount(ctx.services, organizationId, target.id);
    if (!account) throw new ApiError('not_found', { account: target.id }, 'ad account not connected to this organisation (adaccount connect)');
    if (kind === 'ad_spend') checkSpendRange(ctx, params, account.timezone);
  } else if (target.sort === 'page') {
    const { state } = await loadAggregate(store, pageStream(target.id), pageAggregate);
    if (state.organizationId !== organizationId) throw new ApiError('not_found', { page: target.id }, 'page not connected to this organisation (page connect)');
  } else {
    const { state, created } = await readSource(store, target.id);
    if (!state.exists || state.organizationId !== organizationId) throw new ApiError('not_found', { source: target.id }, 'unknown source in this organisation');
    if (kind === 'sheets_sync' && state.kind !== 'spreadsheet') throw new CliError(`${kind} needs a spreadsheet source; ${target.id} is a ${state.kind} source`);
    if (kind === 'sheets_sync' && !created?.csvUrl) {
      throw new CliError(`${kind} needs a sheet to read; source ${target.id} was created without --csv-url (it takes POST /events only)`);
    }
  }
}

/**
 * The days the sync would read, a missing --since or --until filled as the job fills it (today in the
 * account's zone, or the rolling window before it): a --since after today, or an --until before that
 * window, would only fail when the job runs.
 */
function checkSpendRange(ctx: CliContext, params: Record<string, unknown>, timezone: string): void {
  const { spendWindowDays: windowDays, spendBackfillDays: backfillDays } = ctx.services.config.jobs;
  const today = dayIn(timezone, ctx.services.now());
  try {
    spendRange(params, today, { windowDays, backfillDays });
  } catch (error) {
    if (!(error instanceof JobError)) throw error;
    throw new CliError(`--since must not be after --until (today is ${today} in the account's time zone ${timezone}): ${error.message}`);
  }
}

/** The day options each kind reads; any other is refused rather than dropped. */
const DAY_OPTIONS: Record<JobKind, readonly ('since' | 'until')[]> = { ad_spend: ['since', 'until'], lead_import: ['since'], creative_sync: [], sheets_sync: [] };

/** ad_spend takes a day range; lead_import a first day (its default: since the last successful import). */
function paramsFor(ctx: CliContext, kind: JobKind): Record<string, unknown> {
  const { since, until } = ctx.options;
  for (const [name, value] of [['since', since], ['until', until]] as const) {
    if (value === undefined) continue;
    if (!DAY_OPTIONS[kind].includes(name)) throw new CliError(`${kind} takes no --${name}`);
    if (!isDay(value)) throw new CliError(`--${name} must be a day YYYY-MM-DD, got ${value}`);
  }
  if (kind === 'lead_import') return since ? { since } : {};
  if (kind !== 'ad_spend') return {};
  if (since && until && since > until) throw new CliError('--since must not be after --until');
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

export const jobCommands: CommandGroup = {
  enqueue: {
    usage: 'jobs enqueue KIND --org ID [--account act_ID | --source ID | --page ID] [--since YYYY-MM-DD] [--until YYYY-MM-DD]',
    async run(ctx) {
      const kind = positional(ctx, 0, `job kind (${JOB_KINDS.join(', ')})`);
      if (!isJobKind(kind)) throw new CliError(`unknown job kind ${kind} (known: ${JOB_KINDS.join(', ')})`);
      const organizationId = required(ctx, 'org');
      const target = targetFor(ctx, kind);
      const params = paramsFor(ctx, kind);
      await checkTarget(ctx, organizationId, kind, target, params);
      const { scope } = target;
      const queued = await enqueueJob(ctx.services, { organizationId, kind, scope, params, trigger: 'operator' }, { organizationId, actor: 'operator' });
      if (queued.position) await ctx.settle(queued.position);
      ctx.print(queued.created ? `job ${queued.number} queued` : `job ${queued.number} is already queued or running for ${scope}`);
      return { number: queued.number, created: queued.created };
    },
  },
  list: {
    usage: 'jobs list --org ID [--status queued|running|done|failed|cancelled] [--limit N]',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      const status = ctx.options.status;
      if (status !== undefined && !STATUSES.includes(status)) throw new CliError(`--status must be one of ${STATUSES.join(', ')}`);
      const limit = ctx.options.limit === undefined ? 100 : positiveInteger(ctx.options.limit, '--limit');
      if (limit > 1000) throw new CliError('--limit must be 1-1000');
      await ctx.settle();
      const page = openPage({ limit, order: 'desc', status }, { list: 'jobs', organizationId }, ctx.services.secrets.cursorKey);
      const jobs = (await listJobs(ctx.services.pool, organizationId, page, { status })).slice(0, limit).map(toJob);
      for (const j of jobs) {
        const progress = j.status === 'running' ? `  ${j.progress.done} ${j.progress.text}` : '';
        ctx.print(`#${j.number}  ${j.status.padEnd(9)} ${j.kind.padEnd(13)} ${j.label}  (${j.trigger}, attempts ${j.attempts})${progress}${j.error ? `  error: ${j.error}` : ''}${j.summary ? `  ${j.summary}` : ''}`);
      }
      return jobs;
    },
  },
  cancel: {
    usage: 'jobs cancel NUMBER --org ID',
    async run(ctx) {
      const number = positiveInteger(positional(ctx, 0, 'job number'), 'the job number');
      // An unknown organisation is its own not_found, as in every --org command, not 'no such job'.
      const organizationId = await existingOrganization(ctx);
      const position = await cancelJob(ctx.services, organizationId, number, { organizationId, actor: 'operator' });
      await ctx.settle(position);
      ctx.print(`job ${number} cancelled`);
      return { number, status: 'cancelled' };
    },
  },
};
