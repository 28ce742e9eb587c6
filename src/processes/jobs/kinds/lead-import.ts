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

/** Leads indexed late by the platform are still caught: each run re-reads a little before the last one. */
const OVERLAP_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
const LISTED = 20;

interface Tally {
  read: number;
  created: number;
  /** Leads known without their data (pending, or their fetch failed) that this run completed. */
  completed: number;
  known: number;
  refused: string[];
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

async function importForm(ctx: JobContext, run: PageRun, form: LeadForm): Promise<void> {
  const { cfg, token, pageId, since, phoneCountryCode, tally } = run;
  let after: string | undefined;
  do {
    throwIfAborted(ctx.signal);
    const page = await listFormLeads(cfg, form.id, token, { since: since.toISOString(), after, limit: 100 });
    if (page.kind !== 'ok') throw new JobError(`the platform refused the leads of form ${form.id}: ${page.message}`, page.kind === 'permanent');
    await inLanes(page.value.leads, WIDTH, (lead) => laneKeys(lead, phoneCountryCode), async (lead) => {
      try {
        const received = await receiveLead(ctx.services, {
          organizationId: ctx.organizationId, lead: { ...withFormLabels(lead, form.labels), pageId, formName: lead.formName ?? form.name }, via: 'job', phoneCountryCode,
        }, ctx.metadata);
        if (received.created) tally.created += 1;
        else if (received.completed) tally.completed += 1;
        else tally.known += 1;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        tally.refused.push(`${lead.platformLeadId} (${error.hint ?? error.code})`);
      }
      tally.read += 1;
      ctx.progress(tally.read, `${tally.read} leads read, ${tally.created} new`);
    });
    after = page.value.after ?? undefined;
  } while (after);
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
  if (forms.kind !== 'ok') throw new JobError(`the platform refused the forms of page ${pageId}: ${forms.message}`, forms.kind === 'permanent');
  const tally: Tally = { read: 0, created: 0, completed: 0, known: 0, refused: [] };
  const run: PageRun = { cfg, token, pageId, since, phoneCountryCode, tally };
  for (const form of forms.value) await importForm(ctx, run, form);
  const refused = tally.refused.length
    ? `; ${tally.refused.length} refused: ${tally.refused.slice(0, LISTED).join(', ')}${tally.refused.length > LISTED ? ', ...' : ''}`
    : '';
  return { summary: `${forms.value.length} form${forms.value.length === 1 ? '' : 's'}, ${tally.read} leads since ${since.toISOString()}: ${importCounts(tally)}${refused}` };
};
