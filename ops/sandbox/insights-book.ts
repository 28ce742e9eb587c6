// Daily per-ad insight rows per ad account, seeded one by one or generated deterministically in bulk.
import type { GeneratedInsightsSummary, GenerateInsightsOptions, InsightSeed } from './types.ts';

const DAY_MS = 86_400_000;

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(since: string, until: string): number {
  return Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`)) / DAY_MS) + 1;
}

/** A small integer hash (splitmix-like) so generated numbers are stable and cheap to compute. */
function mix(a: number, b: number, c: number, salt: number): number {
  let h = (a * 0x9e3779b1) ^ (b * 0x85ebca77) ^ (c * 0xc2b2ae3d) ^ (salt * 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

interface AccountBook {
  /** date -> ad id -> row */
  days: Map<string, Map<string, InsightSeed>>;
  adIds: Set<string>;
}

export class InsightsBook {
  private readonly accounts = new Map<string, AccountBook>();

  private book(account: string): AccountBook {
    let book = this.accounts.get(account);
    if (!book) {
      book = { days: new Map(), adIds: new Set() };
      this.accounts.set(account, book);
    }
    return book;
  }

  /** Adds rows; a row for the same day and ad replaces the earlier one. */
  seed(account: string, rows: InsightSeed[]): void {
    const book = this.book(account);
    for (const row of rows) {
      let day = book.days.get(row.date);
      if (!day) book.days.set(row.date, (day = new Map()));
      day.set(row.ad_id, row);
      book.adIds.add(row.ad_id);
    }
  }

  /** Generates `ads` x `days` rows; numbers depend only on the options, so tests and benchmarks can recompute them. */
  generate(account: string, opts: GenerateInsightsOptions): GeneratedInsightsSummary {
    const seed = opts.seed ?? 1;
    const perAdset = opts.adsPerAdset ?? 5;
    const perCampaign = opts.adsetsPerCampaign ?? 4;
    const rows: InsightSeed[] = [];
    let cents = 0;
    let impressions = 0;
    let clicks = 0;
    let leads = 0;
    for (let d = 0; d < opts.days; d++) {
      const date = addDays(opts.since, d);
      for (let a = 0; a < opts.ads; a++) {
        const row = generatedRow(seed, a, d, date, perAdset, perCampaign);
        rows.push(row);
        cents += Math.round(row.spend * 100);
        impressions += row.impressions;
        clicks += row.clicks;
        leads += row.formLeads + (row.pixelLeads ?? 0);
      }
    }
    this.seed(account, rows);
    return { rows: rows.length, until: addDays(opts.since, opts.days - 1), spend: cents / 100, impressions, clicks, leads };
  }

  /** Days in the range times ads of the account: the size the platform weighs before answering. */
  cells(account: string, since: string, until: string): number {
    return daysBetween(since, until) * (this.accounts.get(account)?.adIds.size ?? 0);
  }

  /** Rows of the range in a stable order (day, then ad), from `offset`, at most `limit`. */
  page(account: string, since: string, until: string, offset: number, limit: number): { rows: InsightSeed[]; more: boolean } {
    const book = this.accounts.get(account);
    const rows: InsightSeed[] = [];
    if (!book) return { rows, more: false };
    let skip = offset;
    for (let date = since; date <= until; date = addDays(date, 1)) {
      const day = book.days.get(date);
      if (!day) continue;
      if (skip >= day.size) {
        skip -= day.size;
        continue;
      }
      for (const row of day.values()) {
        if (skip > 0) {
          skip -= 1;
          continue;
        }
        if (rows.length === limit) return { rows, more: true };
        rows.push(row);
      }
    }
    return { rows, more: false };
  }

  reset(): void {
    this.accounts.clear();
  }
}

function generatedRow(seed: number, a: number, d: number, date: string, perAdset: number, perCampaign: number): InsightSeed {
  const adset = Math.floor(a / perAdset);
  const campaign = Math.floor(adset / perCampaign);
  const h = mix(seed, a + 1, d + 1, 1);
  const impressions = 200 + (h % 4800);
  const reach = Math.max(1, Math.floor(impressions * (0.6 + (mix(seed, a, d, 2) % 30) / 100)));
  return {
    date,
    campaign_id: String(120_000_000_000 + seed * 100_000 + campaign),
    campaign_name: `Campaign ${campaign + 1}`,
    adset_id: String(130_000_000_000 + seed * 100_000 + adset),
    adset_name: `Ad set ${adset + 1}`,
    ad_id: String(140_000_000_000 + seed * 100_000 + a),
    ad_name: `Ad ${a + 1}`,
    spend: (100 + (mix(seed, a, d, 3) % 9900)) / 100,
    impressions,
    clicks: mix(seed, a, d, 4) % Math.max(1, Math.floor(impressions / 25)),
    reach,
    formLeads: mix(seed, a, d, 5) % 4,
    pixelLeads: a % 5 === 0 ? mix(seed, a, d, 6) % 2 : 0,
  };
}
