// Data of `npm run bench -- reports`: one organisation with 2 ad accounts, 50 campaigns, 200 ad sets and
// 2,000 ads that all spend every day for two years, and 1,000,000 leads (x BENCH_SCALE) with their
// stage histories, appended straight to the store in large batches. Deterministic (seeded).
import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '../src/eventstore/port.ts';
import { addDays } from '../projections/reporting_shared/days.ts';

export const ADS = 2000;
export const DAYS = 730;
const ADS_PER_ADSET = 10;
const ADSETS_PER_CAMPAIGN = 4;
const APPEND_BATCH = 5000;

/** mulberry32: small, fast, seeded. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BenchAd {
  ad: string;
  adset: string;
  campaign: string;
  account: string;
  currency: string;
}

export function benchAds(): BenchAd[] {
  return Array.from({ length: ADS }, (_, i) => {
    const adset = Math.floor(i / ADS_PER_ADSET);
    const campaign = Math.floor(adset / ADSETS_PER_CAMPAIGN);
    const pln = campaign % 2 === 0;
    return { ad: `ad${i}`, adset: `as${adset}`, campaign: `cp${campaign}`, account: pln ? 'act_1' : 'act_2', currency: pln ? 'PLN' : 'EUR' };
  });
}

class Appender {
  private pending: NewEvent[] = [];
  private weight = 0;
  count = 0;
  constructor(private readonly store: EventStore, private readonly organizationId: string) {}

  /** weight: rows the event carries (a spend chunk weighs its days), so one append stays a few MB. */
  async add(type: string, data: Record<string, unknown>, weight = 1): Promise<void> {
    this.pending.push({ type, data: { organizationId: this.organizationId, ...data } });
    this.weight += weight;
    if (this.weight >= APPEND_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending.length) return;
    const events = this.pending;
    this.pending = [];
    this.weight = 0;
    // One stream per batch: the reporting projectors do not read stream names, and one statement per batch is fastest.
    await this.store.append(`bench-${randomUUID()}`, events, 'no_stream', { organizationId: this.organizationId, actor: 'bench' });
    this.count += events.length;
  }
}

const name = (a: BenchAd) => ({
  campaign_id: a.campaign, campaign_name: `Campaign ${a.campaign}`, adset_id: a.adset, adset_name: `Ad set ${a.adset}`, ad_id: a.ad, ad_name: `Ad ${a.ad}`,
});

async function spend(out: Appender, ads: BenchAd[], firstDay: string, rnd: () => number): Promise<void> {
  for (const account of ['act_1', 'act_2']) {
    const mine = ads.filter((a) => a.account === account);
    const currency = mine[0].currency;
    await out.add('AdAccountConnected', { account, name: `Account ${account}`, currency, timezone: 'Europe/Warsaw', tokenCiphertext: '', connectedAt: `${firstDay}T00:00:00.000Z` });
    for (let d = 0; d < DAYS; d++) {
      const date = addDays(firstDay, d);
      const days = mine.map((a) => {
        const impressions = 500 + Math.floor(rnd() * 4500);
        return { date, ...name(a), spend: Math.round((5 + rnd() * 45) * 100) / 100, impressions, clicks: Math.floor(impressions * (0.005 + rnd() * 0.02)), reach: Math.floor(impressions * 0.8), frequency: 1.25, platform_leads: Math.floor(rnd() * 3) };
      });
      await out.add('AdSpendSynced', { account, currency, since: date, until: date, days, syncedAt: new Date().toISOString() }, days.length);
    }
    await out.add('AdSpendSyncSucceeded', { account, since: firstDay, until: addDays(firstDay, DAYS - 1), rows: mine.length * DAYS, at: new Date().toISOString() });
  }
}

async function creatives(out: Appender, ads: BenchAd[], rnd: () => number): Promise<void> {
  for (const a of ads) {
    const video = rnd() < 0.6;
    const asset = Math.floor(rnd() * 300);
    await out.add('AdCreativeSynced', {
      account: a.account, ad_id: a.ad, creative_id: `cr-${a.ad}`, video_id: video ? `v${asset}` : null, image_hash: video ? null : `img${asset}`,
      format: video ? 'video' : 'image', thumbnail_url: '', title: `Creative ${asset}`, body: '', syncedAt: new Date().toISOString(),
    });
  }
  for (let i = 0; i < 100; i++) {
    await out.add('CreativeTagged', { groupId: `video:v${i}`, tags: [`hook:h${i % 5}`, `creator:c${i % 7}`], taggedAt: new Date().toISOString() });
  }
}

/** A lead, its link to its contact, and its stage path: contacted 40%, qualified 15%, sold 5%, rejected 15%. */
async function lead(out: Appender, i: number, ads: BenchAd[], firstDay: string, rnd: () => number): Promise<void> {
  const leadId = `L${i}`;
  const contactId = `C${i}`;
  const day = Math.floor(rnd() * DAYS);
  const submitted = new Date(Date.parse(`${firstDay}T00:00:00Z`) + day * 86_400_000 + Math.floor(rnd() * 86_400_000));
  const roll = rnd();
  const a = roll < 0.1 ? null : ads[Math.floor(rnd() * ads.length)];
  const ad = a ? { platform: 'facebook', ...name(a) } : null;
  await out.add('LeadReceived', {
    leadId, platformLeadId: `p${i}`, contactId, sourceId: 'form-1', formName: 'Form', platformFormId: 'pf1', platformPageId: 'pp1', ad,
    answers: [], cycle: 1, submittedAt: submitted.toISOString(), receivedAt: submitted.toISOString(), fetchStatus: 'ready', via: 'import',
  });
  await out.add('ContactLeadLinked', { contactId, leadId, platformLeadId: `p${i}`, sourceId: 'form-1', platformFormId: 'pf1', ad, cycle: 1, stage: 'new', submittedAt: submitted.toISOString(), linkedAt: submitted.toISOString() });
  const path = rnd();
  const stages: string[] = path < 0.05 ? ['contacted', 'qualified', 'sold'] : path < 0.15 ? ['contacted', 'qualified'] : path < 0.3 ? ['contacted', 'rejected'] : path < 0.4 ? ['contacted'] : [];
  let from = 'new';
  for (const [n, to] of stages.entries()) {
    const sold = to === 'sold';
    await out.add('ContactStageChanged', {
      contactId, from, to, cycle: 1, value: sold ? Math.round(200 + rnd() * 2000) : null, currency: sold ? (a?.currency ?? 'PLN') : null,
      leads: [{ leadId, platformEventQueued: false, conversionEventId: null }], valueLeadId: sold ? leadId : null,
      changedAt: new Date(submitted.getTime() + (n + 1) * 86_400_000).toISOString(),
    });
    from = to;
  }
}

/** Appends everything; returns the number of events written. */
export async function generate(store: EventStore, organizationId: string, leads: number, lastDay: string, progress: (text: string) => void): Promise<number> {
  const out = new Appender(store, organizationId);
  const rnd = random(42);
  const ads = benchAds();
  const firstDay = addDays(lastDay, -(DAYS - 1));
  await spend(out, ads, firstDay, rnd);
  await creatives(out, ads, rnd);
  progress(`spend and creatives: ${out.count} events`);
  for (let i = 0; i < leads; i++) {
    await lead(out, i, ads, firstDay, rnd);
    if ((i + 1) % 200_000 === 0) progress(`${i + 1} leads, ${out.count} events`);
  }
  await out.flush();
  return out.count;
}
