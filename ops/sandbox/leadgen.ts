// The platform's leadgen webhook as it arrives at a subscriber: its JSON body and its X-Hub-Signature-256 header.
import { createHmac } from 'node:crypto';

export interface LeadgenNotice {
  pageId: string;
  formId: string;
  leadId: string;
  /** Unix seconds, or an ISO date-time. */
  createdTime: number | string;
  adId?: string;
}

export interface LeadgenWebhookBody {
  object: 'page';
  entry: Array<{
    id: string;
    time: number;
    changes: Array<{
      field: 'leadgen';
      value: { leadgen_id: string; page_id: string; form_id: string; created_time: number; ad_id?: string; adgroup_id?: string };
    }>;
  }>;
}

/** The header value the platform sends: "sha256=" + hex HMAC-SHA256 of the raw body under the app secret. */
export function signLeadgenPayload(appSecret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function leadgenWebhookBody(notice: LeadgenNotice): LeadgenWebhookBody {
  const created = typeof notice.createdTime === 'number' ? notice.createdTime : Math.floor(Date.parse(notice.createdTime) / 1000);
  // The platform names the ad twice: ad_id and its older name adgroup_id.
  const ad = notice.adId !== undefined ? { ad_id: notice.adId, adgroup_id: notice.adId } : {};
  return {
    object: 'page',
    entry: [
      {
        id: notice.pageId,
        time: created,
        changes: [{ field: 'leadgen', value: { leadgen_id: notice.leadId, page_id: notice.pageId, form_id: notice.formId, created_time: created, ...ad } }],
      },
    ],
  };
}

/** Posts a signed leadgen notice to a subscriber, the way the platform delivers it. */
export async function deliverLeadgen(url: string, appSecret: string, notice: LeadgenNotice, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  const raw = JSON.stringify(leadgenWebhookBody(notice));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signLeadgenPayload(appSecret, raw) },
    body: raw,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: await res.text() };
}
