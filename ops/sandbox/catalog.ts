// Seeded Graph objects the sandbox serves: pages, lead forms, leads, ad accounts, ads, creatives, CSV sheets.
import type { AdAccountSeed, AdSeed, CreativeSeed, FormQuestion, FormSeed, GraphLead, LeadSeed, PageSeed } from './types.ts';

export interface StoredForm {
  id: string;
  pageId: string;
  name: string;
  status: string;
  questions: FormQuestion[];
}

export interface StoredAccount {
  id: string;
  account_id: string;
  name: string;
  currency: string;
  timezone_name: string;
}

/** The platform's created_time format: 2024-03-05T10:20:30+0000. */
export function graphTime(value: string | number): string {
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`bad time ${String(value)}`);
  return date.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export function accountKey(id: string): string {
  return id.startsWith('act_') ? id.slice(4) : id;
}

export class Catalog {
  readonly pages = new Map<string, PageSeed>();
  readonly forms = new Map<string, StoredForm>();
  readonly leads = new Map<string, GraphLead>();
  readonly accounts = new Map<string, StoredAccount>();
  readonly ads = new Map<string, AdSeed>();
  readonly creatives = new Map<string, Record<string, unknown>>();
  readonly sheets = new Map<string, string>();

  seedPage(page: PageSeed): void {
    this.pages.set(page.id, { id: page.id, name: page.name ?? `Page ${page.id}` });
  }

  seedForm(form: FormSeed): void {
    if (!this.pages.has(form.pageId)) this.seedPage({ id: form.pageId });
    this.forms.set(form.id, { id: form.id, pageId: form.pageId, name: form.name, status: form.status ?? 'ACTIVE', questions: form.questions ?? [] });
  }

  seedLead(seed: LeadSeed): GraphLead {
    const lead: GraphLead = {
      id: seed.id,
      created_time: graphTime(seed.createdTime),
      ...(seed.ad ?? {}),
      form_id: seed.formId,
      platform: seed.platform ?? 'fb',
      field_data: Object.entries(seed.answers).map(([name, v]) => ({ name, values: Array.isArray(v) ? v : [v] })),
      is_organic: !seed.ad,
    };
    this.leads.set(lead.id, lead);
    return lead;
  }

  /** Leads of a form, newest first, as the platform lists them. */
  formLeads(formId: string, createdAfter: number | null): GraphLead[] {
    const out: GraphLead[] = [];
    for (const lead of this.leads.values()) {
      if (lead.form_id !== formId) continue;
      if (createdAfter !== null && Date.parse(lead.created_time) / 1000 <= createdAfter) continue;
      out.push(lead);
    }
    return out.sort((a, b) => Date.parse(b.created_time) - Date.parse(a.created_time) || (a.id < b.id ? -1 : 1));
  }

  pageForms(pageId: string): StoredForm[] {
    return [...this.forms.values()].filter((f) => f.pageId === pageId);
  }

  seedAdAccount(seed: AdAccountSeed): StoredAccount {
    const key = accountKey(seed.id);
    const account = {
      id: `act_${key}`,
      account_id: key,
      name: seed.name ?? `Account ${key}`,
      currency: seed.currency ?? 'PLN',
      timezone_name: seed.timezoneName ?? 'Europe/Warsaw',
    };
    this.accounts.set(key, account);
    return account;
  }

  seedAd(ad: AdSeed): void {
    this.ads.set(ad.id, { ...ad, name: ad.name ?? `Ad ${ad.id}` });
  }

  /** Stores the creative the way GET /{creative_id} shows it; a carousel carries its cards in object_story_spec. */
  seedCreative(seed: CreativeSeed): void {
    const objectType = seed.objectType ?? (seed.videoId ? 'VIDEO' : seed.carouselImageHashes ? 'SHARE' : 'PHOTO');
    const creative: Record<string, unknown> = {
      id: seed.id,
      object_type: objectType,
      thumbnail_url: seed.thumbnailUrl ?? `https://scontent.example/${seed.id}.jpg`,
      title: seed.title ?? '',
      body: seed.body ?? '',
    };
    if (seed.videoId) creative.video_id = seed.videoId;
    if (seed.imageHash) creative.image_hash = seed.imageHash;
    if (seed.carouselImageHashes) {
      creative.object_story_spec = {
        link_data: { child_attachments: seed.carouselImageHashes.map((hash) => ({ image_hash: hash, link: 'https://example.com' })) },
      };
    }
    this.creatives.set(seed.id, creative);
  }

  seedSheet(name: string, csv: string): void {
    this.sheets.set(name, csv);
  }

  reset(): void {
    for (const map of [this.pages, this.forms, this.leads, this.accounts, this.ads, this.creatives, this.sheets]) map.clear();
  }
}
