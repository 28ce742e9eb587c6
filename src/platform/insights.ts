// Ad account spend: the account itself, daily per-ad insights (paged, split when too large) and an ad's creative.
import type { SpendDayData } from '../../commands/adaccount/spend.ts';
import { graphGet, isReduceDataError, type PlatformConfig, type PlatformResult } from './graph.ts';

export interface AdAccount {
  /** act_<number> */
  id: string;
  name: string;
  currency: string;
  timezone_name: string;
}

/** One ad's day as the platform reports it: the numbers a spend event stores, and the account they belong to. */
export interface SpendDay extends SpendDayData {
  /** act_<number> */
  account: string;
  currency: string;
}

const INSIGHT_FIELDS = 'campaign_id,campaign_name,adset_id,adset_name,ad_id,ad_name,spend,impressions,clicks,reach,frequency,account_currency,actions';
const FORM_LEAD_TYPES = ['onsite_conversion.lead_grouped', 'leadgen_grouped'];
const PIXEL_LEAD_TYPE = 'offsite_conversion.fb_pixel_lead';
const DAY_MS = 86_400_000;

interface GraphAction {
  action_type?: string;
  value?: string | number;
}

type GraphInsightRow = Record<string, string | undefined> & { actions?: GraphAction[] };

export const actId = (account: string): string => (account.startsWith('act_') ? account : `act_${account}`);
const number = (v: unknown): number => (Number.isFinite(Number(v)) ? Number(v) : 0);

/**
 * Leads the platform counted for a row, without double counting. The platform reports the same instant-form
 * leads under several action types (onsite_conversion.lead_grouped, leadgen_grouped, and inside `lead`), and
 * pixel leads under offsite_conversion.fb_pixel_lead (also inside `lead`). So: form leads are the largest of
 * the form types, and the row's leads are the larger of `lead` and form leads plus pixel leads. Summing the
 * types would count one lead two or three times.
 */
export function platformLeads(actions: GraphAction[] | undefined): number {
  const value = (type: string) => Math.max(0, ...(actions ?? []).filter((a) => a.action_type === type).map((a) => number(a.value)));
  const form = Math.max(...FORM_LEAD_TYPES.map(value));
  return Math.max(value('lead'), form + value(PIXEL_LEAD_TYPE));
}

function spendDay(row: GraphInsightRow, account: string): SpendDay {
  return {
    date: row.date_start ?? '',
    account,
    campaign_id: row.campaign_id ?? '',
    campaign_name: row.campaign_name ?? '',
    adset_id: row.adset_id ?? '',
    adset_name: row.adset_name ?? '',
    ad_id: row.ad_id ?? '',
    ad_name: row.ad_name ?? '',
    currency: row.account_currency ?? '',
    spend: Math.round(number(row.spend) * 100) / 100,
    impressions: number(row.impressions),
    clicks: number(row.clicks),
    reach: number(row.reach),
    frequency: number(row.frequency),
    platform_leads: platformLeads(row.actions),
  };
}

export async function fetchAdAccount(cfg: PlatformConfig, account: string, token: string): Promise<PlatformResult<AdAccount>> {
  const answer = await graphGet(cfg, actId(account), { access_token: token, fields: 'id,name,currency,timezone_name' });
  if (answer.kind !== 'ok') return answer;
  const a = answer.value as Record<string, unknown>;
  return { kind: 'ok', value: { id: actId(String(a.id ?? account)), name: String(a.name ?? ''), currency: String(a.currency ?? ''), timezone_name: String(a.timezone_name ?? '') } };
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

interface RangeQuery {
  account: string;
  token: string;
  since: string;
  until: string;
  pageSize: number;
}

/** All rows of one range, page by page; a range the platform finds too large comes back in halves. */
async function fetchRange(cfg: PlatformConfig, q: RangeQuery): Promise<PlatformResult<SpendDay[]>> {
  const days: SpendDay[] = [];
  let after: string | undefined;
  for (;;) {
    const answer = await graphGet(cfg, `${q.account}/insights`, {
      access_token: q.token,
      level: 'ad',
      time_increment: '1',
      time_range: JSON.stringify({ since: q.since, until: q.until }),
      fields: INSIGHT_FIELDS,
      limit: String(q.pageSize),
      after,
    });
    if (answer.kind !== 'ok') {
      if (!isReduceDataError(answer) || q.since === q.until) return answer;
      return splitRange(cfg, q);
    }
    const page = answer.value as { data?: GraphInsightRow[]; paging?: { cursors?: { after?: string }; next?: string } };
    for (const row of page.data ?? []) days.push(spendDay(row, q.account));
    if (!page.paging?.next || !page.paging.cursors?.after) return { kind: 'ok', value: days };
    after = page.paging.cursors.after;
  }
}

async function splitRange(cfg: PlatformConfig, q: RangeQuery): Promise<PlatformResult<SpendDay[]>> {
  const span = Math.round((Date.parse(`${q.until}T00:00:00Z`) - Date.parse(`${q.since}T00:00:00Z`)) / DAY_MS) + 1;
  const firstUntil = addDays(q.since, Math.ceil(span / 2) - 1);
  const first = await fetchRange(cfg, { ...q, until: firstUntil });
  if (first.kind !== 'ok') return first;
  const second = await fetchRange(cfg, { ...q, since: addDays(firstUntil, 1) });
  if (second.kind !== 'ok') return second;
  return { kind: 'ok', value: first.value.concat(second.value) };
}

/** Daily spend per ad for since..until (YYYY-MM-DD, inclusive). */
export async function fetchDailyAdInsights(
  cfg: PlatformConfig,
  q: { account: string; token: string; since: string; until: string; pageSize?: number },
): Promise<PlatformResult<SpendDay[]>> {
  if (q.since > q.until) return { kind: 'ok', value: [] };
  return fetchRange(cfg, { account: actId(q.account), token: q.token, since: q.since, until: q.until, pageSize: q.pageSize ?? 500 });
}

export type CreativeFormat = 'video' | 'image' | 'carousel' | 'other';

export interface AdCreative {
  ad_id: string;
  creative_id: string;
  video_id: string | null;
  image_hash: string | null;
  format: CreativeFormat;
  thumbnail_url: string;
  title: string;
  body: string;
}

interface GraphCreative {
  id?: string;
  object_type?: string;
  video_id?: string;
  image_hash?: string;
  thumbnail_url?: string;
  title?: string;
  body?: string;
  object_story_spec?: { video_data?: { video_id?: string }; link_data?: { image_hash?: string; child_attachments?: unknown[] } };
}

const CREATIVE_FIELDS = 'id,object_type,video_id,image_hash,thumbnail_url,title,body,object_story_spec';

/** A carousel is told by its cards; a video or an image may sit at the top or inside object_story_spec. */
function creativeOf(adId: string, c: GraphCreative): AdCreative {
  const videoId = c.video_id ?? c.object_story_spec?.video_data?.video_id ?? null;
  const imageHash = c.image_hash ?? c.object_story_spec?.link_data?.image_hash ?? null;
  const cards = c.object_story_spec?.link_data?.child_attachments?.length ?? 0;
  const format: CreativeFormat =
    cards > 1 ? 'carousel' : videoId !== null || c.object_type === 'VIDEO' ? 'video' : imageHash !== null || c.object_type === 'PHOTO' ? 'image' : 'other';
  return {
    ad_id: adId,
    creative_id: String(c.id),
    video_id: videoId,
    image_hash: imageHash,
    format,
    thumbnail_url: c.thumbnail_url ?? '',
    title: c.title ?? '',
    body: c.body ?? '',
  };
}

/** The creative an ad shows. */
export async function fetchAdCreative(cfg: PlatformConfig, adId: string, token: string): Promise<PlatformResult<AdCreative>> {
  const answer = await graphGet(cfg, encodeURIComponent(adId), { access_token: token, fields: `creative{${CREATIVE_FIELDS}}` });
  if (answer.kind !== 'ok') return answer;
  const creative = (answer.value as { creative?: GraphCreative }).creative;
  if (!creative?.id) return { kind: 'permanent', status: 200, message: `ad ${adId} has no creative` };
  return { kind: 'ok', value: creativeOf(adId, creative) };
}
