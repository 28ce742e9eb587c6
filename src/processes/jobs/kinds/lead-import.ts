// lead_import: the safety net behind the leadgen webhook. For a connected page, every form's leads since
// the last successful import (or the platform's retention window on a backfill) go through the same
// intake as the webhook, which is idempotent on platform_lead_id: a lead seen before stays one lead.
import { open } from '../../../crypto/secretBox.ts';
import { platformConfigFrom, type PlatformConfig } from '../../../platform/graph.ts';
import { listFormLeads, listPageForms, withFormLabels, type LeadForm } from '../../../platform/leads.ts';
import { importCounts, receiveLead } from '../../../../commands/lead/intake.ts';
import { organizationSettings } from '../../../../commands/contact/writes.ts';
import { inLanes, laneKeys } from '../../../../commands/lead/lanes.ts';
import { pageStream, type PageConnected } from '../../../../commands/page/page.ts';
import { scopeId } from '../../../../commands/job/kinds.ts';
import { startOfDay } from '../../../../projections/reporting_shared/wall-clock.ts';
import { ApiError } from '../../../../commands/shared/errors.ts';
import { lastSuccessStart } from '../../../../queries/jobs.ts';
import { JobError, throwIfAborted, type JobContext, type JobHandler } from '../handler.ts';
import { isDay } from './days.ts';
import { firstFew } from './listed.ts';

/** Leads indexed late by the platform are still caught: each run re-reads a little before the last one. */
const OVERLAP_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
const LISTED = 20;
/** Leads failed unexpectedly after which the run stops at once: so many are the store's outage, not a lead's fault. */
const MAX_FAILED = 10;

interface Tally {
  read: number;
  created: number;
  /** Leads known without their data (pending, or their fetch failed) that this run completed. */
  completed: number;
  known: number;
  /** Leads left out for good, each `<platform lead id> (<reason>)`: unreadable, or refused by the intake. */
  refused: string[];
  /** Leads whose storing failed unexpectedly (the database, a bug): the job fails after the page's other leads, to read them again. */
  failed: string[];
}

/** What the forms of one run share, each read once per run, and the tally they add to. */
interface PageRun {
  cfg: PlatformConfig;
  token: string;
  pageId: string;
  since: Date;
  phoneCountryCode: string;
  tally: Tally;
}

async function pageToken(ctx: JobContext, pageId: string): Promise<string> {
  const [last] = await ctx.services.store.readStream(pageStream(pageId), { direction: 'backwards', maxCount: 1 });
  const connection = last?.data as PageConnected | undefined;
  if (!connection || connection.organizationId !== ctx.organizationId) throw new JobError(`page ${pageId} is not connected to this organisation`, true);
  return open(connection.tokenCiphertext, ctx.services.secrets.encryptionKey);
}

/** Where this run starts reading: the operator's day (from its start in the organisation's zone, as GET /leads
 * and the reports read days), the retention window, or the last success. */
async function startOf(ctx: JobContext, timezone: string): Promise<Date> {
  const now = ctx.services.now().getTime();
  const retention = new Date(now - ctx.services.config.jobs.leadsBackfillDays * DAY_MS);
  if (isDay(ctx.params.since)) return startOfDay(timezone, ctx.params.since);
  if (ctx.params.backfill === true) return retention;
  const last = await lastSuccessStart(ctx.services.pool, ctx.organizationId, 'lead_import', ctx.scope);
  return last ? new Date(Math.max(last.getTime() - OVERLAP_MS, retention.getTime())) : retention;
}

/** Leads of a page in flight at once, one person's in order (lanes.ts). */
const WIDTH = 4;

/** A form whose leads the platform would not list (at its first page or halfway through): the others go on. */
interface FormFailure {
  permanent: boolean;
  error: string;
}

/** The form's leads, page by page; null when every page was read, else why the platform stopped it. */
async function importForm(ctx: JobContext, run: PageRun, form: LeadForm): Promise<FormFailure | null> {
  const { cfg, token, pageId, since, phoneCountryCode, tally } = run;
  let after: string | undefined;
  do {
    throwIfAborted(ctx.signal);
    const page = await listFormLeads(cfg, form.id, token, { since: since.toISOString(), after, limit: 100 });
    if (page.kind !== 'ok') {
      const permanent = page.kind === 'permanent';
      return { permanent, error: `the platform ${permanent ? 'refused' : 'failed on'} the leads of form ${form.id}${after ? ' halfway through' : ''}: ${page.message}` };
    }
    // A lead the platform sent in a shape we cannot read would be the same on every run: named, and the rest go on.
    for (const bad of page.value.unreadable) {
      tally.refused.push(`${bad.platformLeadId || '(no id)'} (unreadable: ${bad.reason})`);
      tally.read += 1;
    }
    await inLanes(page.value.leads, WIDTH, (lead) => laneKeys(lead, phoneCountryCode), async (lead) => {
      try {
        const received = await receiveLead(ctx.services, {
          organizationId: ctx.organizationId, lead: { ...withFormLabels(lead, form.labels), pageId, formName: lead.formName ?? form.name }, via: 'job', phoneCountryCode,
        }, ctx.metadata);
        if (received.created) tally.created += 1;
        else if (received.completed) tally.completed += 1;
        else tally.known += 1;
      } catch (error) {
        if (error instanceof ApiError) tally.refused.push(`${lead.platformLeadId} (${error.hint ?? error.code})`);
        else {
          ctx.log.error('lead_import: storing a lead failed', { error, platformLeadId: lead.platformLeadId });
          tally.failed.push(lead.platformLeadId);
          if (tally.failed.length === MAX_FAILED) throw new JobError(`${failedSaid(tally)}; stopped after ${tally.read} leads read, the leads before are in`);
        }
      }
      tally.read += 1;
      ctx.progress(tally.read, progressText(tally));
    });
    ctx.progress(tally.read, progressText(tally));
    after = page.value.after ?? undefined;
  } while (after);
  return null;
}

export const leadImportJob: JobHandler = async (ctx) => {
  const pageId = scopeId(ctx.scope, 'page');
  if (!pageId) throw new JobError(`lead_import needs a page scope, not ${ctx.scope}`, true);
  const token = await pageToken(ctx, pageId);
  const cfg = platformConfigFrom(ctx.services.config);
  const settings = await organizationSettings(ctx.services.store, ctx.organizationId);
  if (!settings) throw new JobError(`organisation ${ctx.organizationId} does not exist`, true);
  const { phoneCountryCode, timezone } = settings;
  const since = await startOf(ctx, timezone);
  const forms = await listPageForms(cfg, pageId, token);
  if (forms.kind !== 'ok') {
    const permanent = forms.kind === 'permanent';
    throw new JobError(`the platform ${permanent ? 'refused' : 'failed on'} the forms of page ${pageId}: ${forms.message}`, permanent);
  }
  const tally: Tally = { read: 0, created: 0, completed: 0, known: 0, refused: [], failed: [] };
  const run: PageRun = { cfg, token, pageId, since, phoneCountryCode, tally };
  const failures: FormFailure[] = [];
  for (const form of forms.value) {
    const failure = await importForm(ctx, run, form);
    if (failure) failures.push(failure);
  }
  const refused = tally.refused.length ? `; ${tally.refused.length} refused: ${listed(tally.refused)}` : '';
  const done = `${forms.value.length} form${forms.value.length === 1 ? '' : 's'}, ${tally.read} leads since ${since.toISOString()}: ${importCounts(tally)}${refused}`;
  const formsSaid = failures.map((f) => f.error).join('; ');
  // Every form refused is the page's trouble (a token that lost its permission): the job fails, as when the forms' list is refused.
  if (failures.length > 0 && failures.length === forms.value.length) throw new JobError(`${formsSaid}; ${done}`, failures.every((f) => f.permanent));
  // Not a success: the next run would start after this one and never read these leads again. The retry reads them
  // (the others are known by then, so it adds nothing twice).
  if (failures.some((f) => !f.permanent)) throw new JobError(`${formsSaid}; the other forms' leads are in; ${done}`);
  if (tally.failed.length) throw new JobError(`${failedSaid(tally)}, the others are in; ${done}`);
  // A form the platform refuses for good (deleted since it was listed) would be refused on every retry: named, not retried.
  return { summary: failures.length ? `${done}; ${formsSaid}` : done };
};

const failedSaid = (tally: Tally) => `${tally.failed.length} leads could not be stored (${listed(tally.failed)})`;
const listed = (items: string[]) => firstFew(items, LISTED);

/** What the job's progress says: the leads read so far, and the ones left out when there are some. */
function progressText(tally: Tally): string {
  const left = tally.refused.length + tally.failed.length;
  return `${tally.read} leads read, ${tally.created} new${left ? `, ${left} not stored` : ''}`;
}
