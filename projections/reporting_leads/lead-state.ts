// A lead as the reports see it, how events move it, and what it adds to the daily cohort facts.
// Pure: the projector loads states, folds a batch through these functions and writes the differences.
import type { AdSource } from '../../commands/lead/lead.ts';
import type { ContactStageChanged, Stage } from '../../commands/contact/contact.ts';

export interface ReportLead {
  organizationId: string;
  leadId: string;
  /** Local day (organisation zone) the lead was submitted; null while unknown (stage seen before the lead). */
  day: string | null;
  /** No ad known (organic, or a webhook lead whose data has not been fetched yet). */
  organic: boolean;
  campaignId: string;
  adsetId: string;
  adId: string;
  stage: Stage;
  /** The stage history includes qualified or sold. */
  qualified: boolean;
  /** The sale value counted on this lead (null when none); it counts only while the lead is sold. */
  saleValue: number | null;
  /** '' when the sale carried no currency: it then counts in the ad account's currency. */
  saleCurrency: string;
}

/** Where a contribution lands: one cohort cell of one day. */
export interface FactKey {
  organizationId: string;
  day: string;
  organic: boolean;
  campaignId: string;
  adsetId: string;
  adId: string;
  /** '' = the currency of the lead's ad account, resolved when the report is read. */
  currency: string;
}

export interface Counters {
  leads: number;
  qualified: number;
  rejected: number;
  sales: number;
  /** Whole millionths of the currency unit (saleMicros), so that sums are exact and equal a rebuild's. */
  revenueMicros: number;
}

export interface Contribution {
  key: FactKey;
  counters: Counters;
}

export const emptyLead = (organizationId: string, leadId: string): ReportLead => ({
  organizationId, leadId, day: null, organic: true, campaignId: '', adsetId: '', adId: '',
  stage: 'new', qualified: false, saleValue: null, saleCurrency: '',
});

/** LeadReceived and LeadFetched: where and when the lead came from (the stage is left as it is). */
export function withSource(lead: ReportLead, ad: AdSource | null, day: string | null): ReportLead {
  return {
    ...lead, day, organic: ad === null,
    campaignId: ad?.campaign_id ?? '', adsetId: ad?.adset_id ?? '', adId: ad?.ad_id ?? '',
  };
}

/** ContactLeadLinked: the lead enters at the contact's current stage. */
export function withEntryStage(lead: ReportLead, stage: Stage): ReportLead {
  return { ...lead, stage, qualified: lead.qualified || stage === 'qualified' || stage === 'sold' };
}

/** ContactStageChanged for one of the leads it lists. The value is counted on valueLeadId only. */
export function withStageChange(lead: ReportLead, change: ContactStageChanged): ReportLead {
  const next = withEntryStage(lead, change.to);
  if (change.to !== 'sold') return next;
  const counted = change.valueLeadId === lead.leadId && change.value !== null;
  return { ...next, saleValue: counted ? change.value : null, saleCurrency: counted ? (change.currency ?? '') : '' };
}

/**
 * A sale value as whole millionths, rounded half away from zero as PostgreSQL's round(numeric * 1000000) rounds it
 * when a rebuild derives the facts from report_leads (replay.ts). From the number's decimal text shifted by 6
 * places, not from value * 1e6: 0.0001245 * 1e6 is 124.49999999999999 in floating point (124 here, 125 rebuilt).
 * Each lead's value is rounded before cells are summed, as the rebuild sums rounded values: two sales of 0.0000004
 * summed first made 1 millionth where the rebuild has 0.
 */
export function saleMicros(value: number): number {
  const [digits, exponent] = value.toExponential().split('e');
  const shifted = Number(`${digits}e${Number(exponent) + 6}`);
  return Math.sign(shifted) * Math.round(Math.abs(shifted));
}

/** What the lead adds to the facts: its counts in its ad's currency, its revenue in the sale's currency. */
export function contributions(lead: ReportLead): Contribution[] {
  if (lead.day === null) return [];
  const key: FactKey = {
    organizationId: lead.organizationId, day: lead.day, organic: lead.organic,
    campaignId: lead.campaignId, adsetId: lead.adsetId, adId: lead.adId, currency: '',
  };
  const sold = lead.stage === 'sold';
  const counts: Contribution = {
    key,
    counters: { leads: 1, qualified: lead.qualified ? 1 : 0, rejected: lead.stage === 'rejected' ? 1 : 0, sales: sold ? 1 : 0, revenueMicros: 0 },
  };
  if (!sold || lead.saleValue === null) return [counts];
  const revenueMicros = saleMicros(lead.saleValue);
  const revenue = { leads: 0, qualified: 0, rejected: 0, sales: 0, revenueMicros };
  if (lead.saleCurrency === '') return [{ key, counters: { ...counts.counters, revenueMicros } }];
  return [counts, { key: { ...key, currency: lead.saleCurrency }, counters: revenue }];
}

export function factKeyText(k: FactKey): string {
  return [k.organizationId, k.day, k.organic ? '1' : '0', k.campaignId, k.adsetId, k.adId, k.currency].join('\u0001');
}

/** Sums of contributions by cell; `sign` -1 takes a lead's old contribution back out. */
export class FactDeltas {
  readonly cells = new Map<string, Contribution>();

  add(items: Contribution[], sign: 1 | -1): void {
    for (const { key, counters } of items) {
      const id = factKeyText(key);
      let cell = this.cells.get(id);
      if (!cell) {
        cell = { key, counters: { leads: 0, qualified: 0, rejected: 0, sales: 0, revenueMicros: 0 } };
        this.cells.set(id, cell);
      }
      cell.counters.leads += sign * counters.leads;
      cell.counters.qualified += sign * counters.qualified;
      cell.counters.rejected += sign * counters.rejected;
      cell.counters.sales += sign * counters.sales;
      cell.counters.revenueMicros += sign * counters.revenueMicros;
    }
  }

  /** Cells whose sums changed (a lead moved and came back nets out to nothing). */
  changed(): Contribution[] {
    return [...this.cells.values()].filter(({ counters: c }) => c.leads || c.qualified || c.rejected || c.sales || c.revenueMicros);
  }
}
