// Hand-built events of the shapes the reports consume, appended straight to the store.
import { randomUUID } from 'node:crypto';
import { comparePositions, START, type EventStore, type Position } from '../../src/eventstore/port.ts';
import type { AdSource } from '../../commands/lead/lead.ts';
import type { Stage } from '../../commands/contact/contact.ts';
import type { SpendDayData as SpendDay } from '../../commands/adaccount/spend.ts';

export interface AdRef {
  campaign: string;
  adset: string;
  ad: string;
}

export const adSource = (a: AdRef): AdSource => ({
  platform: 'facebook', campaign_id: a.campaign, campaign_name: `Campaign ${a.campaign}`, adset_id: a.adset,
  adset_name: `Ad set ${a.adset}`, ad_id: a.ad, ad_name: `Ad ${a.ad}`,
});

export function spendDay(a: AdRef, date: string, spend: number, more: Partial<SpendDay> = {}): SpendDay {
  return {
    date, campaign_id: a.campaign, campaign_name: `Campaign ${a.campaign}`, adset_id: a.adset, adset_name: `Ad set ${a.adset}`,
    ad_id: a.ad, ad_name: `Ad ${a.ad}`, spend, impressions: 0, clicks: 0, reach: 0, frequency: 0, platform_leads: 0, ...more,
  };
}

/** Appends as the producers would; each call is one append to one stream. */
export class Given {
  /** The furthest position appended so far: what the read models must pass before a report is read. */
  last: Position = START;

  constructor(private readonly store: EventStore, readonly organizationId: string) {}

  track(position: Position | null): void {
    if (position && comparePositions(position, this.last) > 0) this.last = position;
  }

  private async append(stream: string, type: string, data: Record<string, unknown>) {
    const result = await this.store.append(stream, [{ type, data: { organizationId: this.organizationId, ...data } }], 'any', { organizationId: this.organizationId, actor: 'test' });
    this.track(result.position);
    return result;
  }

  accountConnected(account: string, currency: string, name = `Account ${account}`) {
    return this.append(`adaccount-${this.organizationId}-${account}`, 'AdAccountConnected', { account, name, currency, timezone: 'Europe/Warsaw', tokenCiphertext: '', connectedAt: '2024-01-01T00:00:00.000Z' });
  }

  spendSynced(account: string, currency: string, days: SpendDay[], since = days[0]?.date ?? '2024-01-01', until = days.at(-1)?.date ?? since) {
    return this.append(`adspend-${this.organizationId}-${account}`, 'AdSpendSynced', { account, currency, since, until, days, syncedAt: new Date().toISOString() });
  }

  syncSucceeded(account: string, since: string, until: string, at: string) {
    return this.append(`adspend-${this.organizationId}-${account}`, 'AdSpendSyncSucceeded', { account, since, until, rows: 1, at });
  }

  syncFailed(account: string, error: string, at: string) {
    return this.append(`adspend-${this.organizationId}-${account}`, 'AdSpendSyncFailed', { account, error, at });
  }

  /** A lead whose contact is `lead-contact-<leadId>`; pending leads carry no ad until fetched. */
  leadReceived(leadId: string, ad: AdRef | null, submittedAt: string, options: { pending?: boolean; adSource?: AdSource } = {}) {
    return this.append(`lead-${leadId}`, 'LeadReceived', {
      leadId, platformLeadId: `p-${leadId}`, contactId: options.pending ? null : `c-${leadId}`, sourceId: options.pending ? null : 'form-1',
      formName: 'Form', platformFormId: 'pf-1', platformPageId: 'pp-1', ad: options.pending ? null : (options.adSource ?? (ad ? adSource(ad) : null)),
      answers: [], cycle: options.pending ? 0 : 1, submittedAt, receivedAt: submittedAt, fetchStatus: options.pending ? 'pending' : 'ready', via: options.pending ? 'webhook' : 'import',
    });
  }

  leadFetched(leadId: string, ad: AdRef | null, submittedAt: string) {
    return this.append(`lead-${leadId}`, 'LeadFetched', {
      leadId, platformLeadId: `p-${leadId}`, contactId: `c-${leadId}`, sourceId: 'form-1', formName: 'Form', platformFormId: 'pf-1',
      platformPageId: 'pp-1', ad: ad ? adSource(ad) : null, answers: [], cycle: 1, submittedAt, fetchedAt: submittedAt, fetchStatus: 'ready',
    });
  }

  /** Moves the lead's contact (one lead per contact here) from one stage to the next. */
  stage(leadId: string, from: Stage, to: Stage, changedAt: string, sale?: { value: number; currency: string | null }) {
    return this.append(`contact-c-${leadId}`, 'ContactStageChanged', {
      contactId: `c-${leadId}`, from, to, cycle: 1, value: sale?.value ?? null, currency: sale?.currency ?? null,
      leads: [{ leadId, platformEventQueued: false, conversionEventId: null }], valueLeadId: sale ? leadId : null, changedAt,
    });
  }

  creativeSynced(account: string, adId: string, creative: { creative_id?: string; video_id?: string | null; image_hash?: string | null; format?: string; title?: string }) {
    return this.append(`adcreative-${this.organizationId}-${account}`, 'AdCreativeSynced', {
      account, ad_id: adId, creative_id: creative.creative_id ?? `cr-${adId}`, video_id: creative.video_id ?? null,
      image_hash: creative.image_hash ?? null, format: creative.format ?? 'video', thumbnail_url: `https://cdn.example/${adId}.jpg`,
      title: creative.title ?? `Title ${adId}`, body: 'Body', syncedAt: new Date().toISOString(),
    });
  }

  unrelated() {
    return this.append(`misc-${randomUUID()}`, 'SomethingElse', {});
  }
}
