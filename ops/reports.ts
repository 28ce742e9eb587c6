// `ops reports campaign|creative --org ID [the endpoint's parameters] [--as-of ISO_TIME]`: the same report
// as the API, now or as it would have been at a past moment (the store replayed up to it).
import type { z } from 'zod';
import type { Queryable } from '../src/db/pool.ts';
import { CampaignReportQuery, CreativeReportQuery, resolveCampaignParams, resolveCreativeParams } from '../queries/reports/params.ts';
import { campaignReport } from '../queries/reports/campaign.ts';
import { creativeReport } from '../queries/reports/creative.ts';
import { reportScope } from '../queries/reports/scope.ts';
import { CliError, existingOrganization, parseIsoTime, type CliContext, type CommandGroup } from './context.ts';
import { withReportsAsOf } from './reports-asof.ts';
import { pickLanguage } from '../src/http/messages.ts';
import { campaignLines, creativeLines } from './reports-print.ts';

/** --name options as the endpoint's query (--ad-account is ad_account); unknown options are refused. */
function queryOf<S extends z.ZodType>(ctx: CliContext, schema: S, names: string[]): z.infer<S> {
  const known = new Set([...names, 'org', 'as-of', 'json', 'verbose']);
  const unknown = Object.keys(ctx.options).filter((k) => !known.has(k));
  if (unknown.length) throw new CliError(`unknown option --${unknown[0]}`);
  const query = Object.fromEntries(names.filter((n) => ctx.options[n] !== undefined).map((n) => [n.replace(/-/g, '_'), ctx.options[n]]));
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`--${String(issue.path[0] ?? '').replace(/_/g, '-')}: ${issue.message}`);
  }
  return parsed.data;
}

function asOfOf(ctx: CliContext): Date | null {
  const text = ctx.options['as-of'];
  if (text === undefined) return null;
  // A date-time the calendar has: Date.parse would read 2026-02-30T10:00:00Z as 2 March.
  const parsed = parseIsoTime(text);
  if (!parsed?.hasTime) throw new CliError(`--as-of is not an ISO 8601 time: ${text}`);
  const asOf = parsed.at;
  if (asOf.getTime() > ctx.services.now().getTime()) throw new CliError('--as-of is in the future');
  return asOf;
}

/** Current read models (brought up to date first), or the replayed ones of --as-of. */
async function onReadModels<T>(ctx: CliContext, work: (db: Queryable, asOf: Date) => Promise<T>): Promise<T> {
  const asOf = asOfOf(ctx);
  if (asOf) return withReportsAsOf(ctx.services, asOf, (db) => work(db, asOf));
  await ctx.settle();
  return work(ctx.services.pool, ctx.services.now());
}

async function scopeFor(db: Queryable, organizationId: string, asOf: Date) {
  const scope = await reportScope(db, organizationId, asOf);
  if (!scope) throw new CliError(`unknown organisation ${organizationId}`);
  return scope;
}

export const reportCommands: CommandGroup = {
  campaign: {
    usage: 'reports campaign --org ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--level campaign|adset|ad] [--campaign ID] [--adset ID] [--as-of ISO_TIME]',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      const query = queryOf(ctx, CampaignReportQuery, ['from', 'to', 'level', 'campaign', 'adset']);
      const report = await onReadModels(ctx, async (db, asOf) => {
        const scope = await scopeFor(db, organizationId, asOf);
        return campaignReport(db, scope, resolveCampaignParams(query, scope.today));
      });
      for (const line of campaignLines(report)) ctx.print(line);
      return report;
    },
  },
  creative: {
    usage: 'reports creative --org ID [--from D] [--to D] [--weeks 4-8] [--format F] [--campaign ID] [--ad-account act_ID] [--tag dim:value] [--as-of ISO_TIME]',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      const query = queryOf(ctx, CreativeReportQuery, ['from', 'to', 'weeks', 'format', 'campaign', 'ad-account', 'tag']);
      const report = await onReadModels(ctx, async (db, asOf) => {
        const scope = await scopeFor(db, organizationId, asOf);
        // The endpoint's document as a call without Accept-Language gets it: the fatigue reason in the default language.
        return creativeReport(db, scope, resolveCreativeParams(query, scope.today), pickLanguage(undefined));
      });
      for (const line of creativeLines(report)) ctx.print(line);
      return report;
    },
  },
};
