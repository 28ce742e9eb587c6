// creative_sync: the creative of each ad seen in spend data whose creative is unknown or a week old.
// An ad the platform will not describe (deleted, no creative) is counted and named, not retried; a token the
// platform refuses (revoked, expired) fails the job for good, as the spend sync does.
import { positionFromJson } from '../../../eventstore/port.ts';
import { platformConfigFrom, type PlatformConfig } from '../../../platform/graph.ts';
import { fetchAdCreative } from '../../../platform/insights.ts';
import { adCreativeStream } from '../../../../commands/adaccount/adaccount.ts';
import { creativeGroupOf, type AdCreativeEvent } from '../../../../commands/adaccount/creative.ts';
import { adsNeedingCreatives } from '../../../../queries/adCatalog.ts';
import { connectedAccount } from './ad-account.ts';
import { JobError, throwIfAborted, type JobContext, type JobHandler } from '../handler.ts';

const REFRESH_MS = 7 * 86_400_000;
const MAX_ADS = 5000;
const PARALLEL = 8;
const APPEND_EVERY = 200;
/** The platform's "invalid OAuth access token" (revoked, expired, its user logged out): every ad would be refused. */
const TOKEN_REFUSED = 190;

/**
 * The catalog must have seen the spend sync that queued this job before its worklist is read; a retry waits for
 * the creatives its earlier attempt kept too, so that it reads only the ads still left.
 */
async function waitForCatalog(ctx: JobContext): Promise<void> {
  const queuedAfter = typeof ctx.params.after === 'string' && ctx.attempt === 1 ? positionFromJson(ctx.params.after) : null;
  const after = queuedAfter ?? await ctx.services.store.headPosition();
  if (!(await ctx.services.waiter.waitFor(['ad_catalog'], after, 30_000))) throw new JobError('the ad catalog is behind the spend data; trying later');
}

interface Outcome {
  events: AdCreativeEvent[];
  /** Ads the platform would not describe, and the first reason it gave. */
  missing: string[];
  reason: string;
  /** The platform's failure for now (a rate limit, an outage) that stopped the reading, if one did. */
  failure: string | null;
  /** The platform refused the account's token: the reading stopped, and no retry can help. */
  tokenRefused: string | null;
}

async function fetchAll(ctx: JobContext, cfg: PlatformConfig, account: string, token: string, ads: string[]): Promise<Outcome> {
  const out: Outcome = { events: [], missing: [], reason: '', failure: null, tokenRefused: null };
  let next = 0;
  const worker = async () => {
    while (next < ads.length && out.failure === null && out.tokenRefused === null) {
      throwIfAborted(ctx.signal);
      const adId = ads[next++];
      const answer = await fetchAdCreative(cfg, adId, token);
      if (answer.kind === 'transient') {
        out.failure ??= `the platform failed on ad ${adId}: ${answer.message}`;
        return;
      }
      // Not the ad's fault: each ad was listed as "without a creative (Error validating access token ...)" and the job done.
      if (answer.kind === 'permanent' && answer.code === TOKEN_REFUSED) {
        out.tokenRefused ??= answer.message;
        return;
      }
      if (answer.kind === 'permanent') {
        out.missing.push(adId);
        out.reason ||= answer.message.split(/(?<=\.)\s/)[0].slice(0, 160); // its first sentence
      }
      else out.events.push({ type: 'AdCreativeSynced', data: { organizationId: ctx.organizationId, account, ...answer.value, syncedAt: ctx.services.now().toISOString() } });
      ctx.progress(out.events.length + out.missing.length, `${out.events.length + out.missing.length} of ${ads.length} ads read`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, ads.length) }, worker));
  return out;
}

export const creativeSyncJob: JobHandler = async (ctx) => {
  const { services, organizationId } = ctx;
  const { account, connected } = await connectedAccount(ctx);
  await waitForCatalog(ctx);
  const staleBefore = new Date(services.now().getTime() - REFRESH_MS);
  const ads = await adsNeedingCreatives(services.pool, organizationId, account, staleBefore, MAX_ADS);
  const { events, missing, reason, failure, tokenRefused } = await fetchAll(ctx, platformConfigFrom(services.config), account, connected.token, ads);
  // Each creative read is kept, also when the platform stopped the reading: the retry reads only the ads left, so a
  // large account that the platform rate-limits halfway gets through in a few attempts instead of never.
  for (let i = 0; i < events.length; i += APPEND_EVERY) {
    await services.store.append(adCreativeStream(organizationId, account), events.slice(i, i + APPEND_EVERY), 'any', ctx.metadata);
  }
  if (tokenRefused) throw new JobError(`the platform refused the token of ${account}: ${tokenRefused}; the ${events.length} creatives read before are kept`, true);
  if (failure) throw new JobError(`${failure}; the ${events.length} creatives read before are kept, ${ads.length - events.length - missing.length} ads are left for the retry`);
  const groups = new Set(events.map((e) => creativeGroupOf(e.data))).size;
  const skipped = missing.length ? `; ${missing.length} without a creative (${reason}): ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}` : '';
  return { summary: `${events.length} of ${ads.length} ads' creatives read (${groups} creative groups)${skipped}` };
};
