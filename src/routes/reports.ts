// GET /campaigns/report and GET /creatives/report: thin handlers over queries/reports.
import { defineRoute } from '../http/route.ts';
import { ApiError } from '../../commands/shared/errors.ts';
import { CampaignReportQuery, CreativeReportQuery, resolveCampaignParams, resolveCreativeParams } from '../../queries/reports/params.ts';
import { CampaignReport, CreativeReport } from '../../queries/reports/schemas.ts';
import { campaignReport } from '../../queries/reports/campaign.ts';
import { creativeReport } from '../../queries/reports/creative.ts';
import { reportScope } from '../../queries/reports/scope.ts';
import { FATIGUE_RULE } from '../../queries/reports/fatigue.ts';
import { cachedCatalog, type CatalogReader } from '../../queries/reports/catalogCache.ts';
import type { Pool } from '../db/pool.ts';

/** One catalog cache per database the service reads (tests run several services in one process). */
const catalogs = new WeakMap<Pool, CatalogReader>();
function catalogOf(pool: Pool): CatalogReader {
  let catalog = catalogs.get(pool);
  if (!catalog) catalogs.set(pool, (catalog = cachedCatalog()));
  return catalog;
}

export const getCampaignReport = defineRoute({
  method: 'get',
  path: '/campaigns/report',
  scope: 'campaigns:read',
  summary: 'Campaign report: spend and the lead cohort per campaign, ad set or ad, totals per currency against the previous period',
  tag: 'Reports',
  query: CampaignReportQuery,
  success: {
    status: 200,
    schema: CampaignReport,
    description: 'Cohort rule: leads submitted in the range (days in the organisation\'s zone), with the stages and sales they reached up to now; '
      + 'spend and platform_leads of the range\'s days. Range: at most 366 days, to not before from (default: to today, from 30 days before it).',
  },
  errors: [],
  handler: async ({ query, caller, services }) => {
    const scope = await reportScope(services.pool, caller.organizationId, services.now());
    if (!scope) throw new ApiError('unauthorized');
    const params = resolveCampaignParams(query, scope.today);
    return { status: 200, body: await campaignReport(services.pool, scope, params, catalogOf(services.pool)) };
  },
});

export const getCreativeReport = defineRoute({
  method: 'get',
  path: '/creatives/report',
  scope: 'creatives:read',
  summary: 'Creative report: creative groups with metrics, delivery, weekly trend, momentum and fatigue verdict',
  tag: 'Reports',
  query: CreativeReportQuery,
  success: {
    status: 200,
    schema: CreativeReport,
    description: `Rows per creative group (same video, else image, else creative). Fatigue: needs ${FATIGUE_RULE.minActiveWeeks} weeks of `
      + `${FATIGUE_RULE.minWeekImpressions} impressions (the last included); fatigued when CTR fell at least ${FATIGUE_RULE.ctrDropFatigued * 100}% from its best week `
      + `while cost per lead rose at least ${FATIGUE_RULE.costPerLeadRise * 100}% and frequency at least ${FATIGUE_RULE.frequencyRise * 100}%; see CreativeFatigue.`,
  },
  errors: [],
  handler: async ({ query, caller, services, language }) => {
    const scope = await reportScope(services.pool, caller.organizationId, services.now());
    if (!scope) throw new ApiError('unauthorized');
    const params = resolveCreativeParams(query, scope.today);
    return { status: 200, body: await creativeReport(services.pool, scope, params, language, catalogOf(services.pool)) };
  },
});
