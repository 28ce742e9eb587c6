// Creative fatigue and momentum from a group's weekly series. Pure, so the rule can be tested on
// synthetic series; the thresholds are the documented contract (README, OpenAPI, docs/reports.md).
//
// Public practice reads fatigue from three signals moving together: click-through falling from its best
// week, cost per lead rising, and frequency rising (the same people seeing the ad again and again).
import { roundTo } from './metrics.ts';

export interface WeekPoint {
  spend: number;
  impressions: number;
  clicks: number;
  /** Sum of daily reach: impressions / reach is the average daily frequency. */
  reach: number;
  leads: number;
}

export type Verdict = 'fresh' | 'stable' | 'fatiguing' | 'fatigued' | 'insufficient_data';

export const FATIGUE_RULE = {
  /** A week with fewer impressions says too little about click-through. */
  minWeekImpressions: 1000,
  /** Weeks with enough impressions needed before any verdict (the last week must be one of them). */
  minActiveWeeks: 3,
  /** Click-through share of the best earlier week at or above which a creative is fresh. */
  freshCtrShare: 0.9,
  /** Fall of click-through from the best earlier week: a fatigue signal, and the fatigued level. */
  ctrDrop: 0.2,
  ctrDropFatigued: 0.35,
  /** Rise of cost per lead against the earlier active weeks together. */
  costPerLeadRise: 0.2,
  /** Rise of frequency against the best week. */
  frequencyRise: 0.1,
} as const;

export interface Fatigue {
  verdict: Verdict;
  /** 1-based index of the best earlier week by click-through (null without a verdict). */
  best_week: number | null;
  /** Signed change of the last week's CTR against the best week (-0.3 = 30% lower). */
  ctr_change: number | null;
  /** Signed change of the last week's cost per lead against the earlier active weeks together. */
  cost_per_lead_change: number | null;
  /** Signed change of the last week's frequency against the best week. */
  frequency_change: number | null;
}

// Half up, as every figure of the reports (1.0005 * 1000 is 1000.4999999999999 in floating point).
const round = (x: number) => roundTo(x, 3);
/**
 * x reaches the threshold "at least": a change exactly on it is computed in binary floating point (0.008 / 0.01 - 1 is
 * -0.20000000000000007, 3.3 / 3 - 1 is 0.09999999999999987), so it is compared with a margin far below any shown digit.
 */
const reaches = (x: number, threshold: number) => x >= threshold - 1e-9;
const ctrOf = (w: WeekPoint) => (w.impressions > 0 ? w.clicks / w.impressions : 0);
const frequencyOf = (w: WeekPoint) => (w.reach > 0 ? w.impressions / w.reach : null);

/** Cost per lead of the last week against the earlier active weeks pooled; a week of spend with no lead counts as a rise. */
function costPerLeadChange(last: WeekPoint, earlier: WeekPoint[]): number | null {
  const spend = earlier.reduce((s, w) => s + w.spend, 0);
  const leads = earlier.reduce((s, w) => s + w.leads, 0);
  if (leads === 0 || spend === 0) return null;
  const before = spend / leads;
  if (last.leads === 0) return last.spend > 0 ? Infinity : null;
  return last.spend / last.leads / before - 1;
}

export function fatigueOf(weeks: WeekPoint[]): Fatigue {
  const rule = FATIGUE_RULE;
  const none: Fatigue = { verdict: 'insufficient_data', best_week: null, ctr_change: null, cost_per_lead_change: null, frequency_change: null };
  const last = weeks[weeks.length - 1];
  const active = weeks.map((w, i) => ({ w, i })).filter(({ w }) => w.impressions >= rule.minWeekImpressions);
  if (!last || last.impressions < rule.minWeekImpressions || active.length < rule.minActiveWeeks) return none;
  const earlier = active.slice(0, -1);
  const best = earlier.reduce((a, b) => (ctrOf(b.w) > ctrOf(a.w) ? b : a));
  const bestCtr = ctrOf(best.w);
  const ctrChange = bestCtr > 0 ? ctrOf(last) / bestCtr - 1 : null;
  const cplChange = costPerLeadChange(last, earlier.map((e) => e.w));
  const lastFrequency = frequencyOf(last);
  const bestFrequency = frequencyOf(best.w);
  const frequencyChange = lastFrequency !== null && bestFrequency ? lastFrequency / bestFrequency - 1 : null;

  const ctrFell = ctrChange !== null && reaches(-ctrChange, rule.ctrDrop);
  const cplRose = cplChange !== null && reaches(cplChange, rule.costPerLeadRise);
  const frequencyRose = frequencyChange !== null && reaches(frequencyChange, rule.frequencyRise);
  // No lead in any active week: cost per lead has nothing to be compared with (spend with no lead before
  // and after is not a rise), so neither "cost per lead not rising" (fresh) nor a cost signal (fatigued)
  // can be said. Click-through and frequency alone can still show the ad tiring.
  const noLeads = active.every(({ w }) => w.leads === 0);
  let verdict: Verdict = 'stable';
  if (noLeads) verdict = ctrFell && frequencyRose ? 'fatiguing' : 'insufficient_data';
  else if (ctrFell && reaches(-ctrChange!, rule.ctrDropFatigued) && cplRose && frequencyRose) verdict = 'fatigued';
  else if (ctrFell && (cplRose || frequencyRose)) verdict = 'fatiguing';
  else if ((ctrChange === null || reaches(ctrChange, rule.freshCtrShare - 1)) && !cplRose) verdict = 'fresh';
  return {
    verdict,
    best_week: best.i + 1,
    ctr_change: ctrChange === null ? null : round(ctrChange),
    // An infinite rise (spend, no lead) is shown as null: the verdict already used it.
    cost_per_lead_change: cplChange === null || !Number.isFinite(cplChange) ? null : round(cplChange),
    frequency_change: frequencyChange === null ? null : round(frequencyChange),
  };
}

/**
 * Momentum: the last week's leads against the average week before it, counted from the group's first
 * week with impressions, as a signed ratio (+0.5 = half as many again; -1 = none). Null when there is no
 * earlier week or the earlier weeks brought no lead.
 */
export function momentumOf(weeks: WeekPoint[]): number | null {
  const first = weeks.findIndex((w) => w.impressions > 0 || w.leads > 0);
  if (first < 0 || first >= weeks.length - 1) return null;
  const earlier = weeks.slice(first, -1);
  const mean = earlier.reduce((s, w) => s + w.leads, 0) / earlier.length;
  if (mean === 0) return null;
  return round(weeks[weeks.length - 1].leads / mean - 1);
}

/** The verdict in words, in the caller's language. */
export const VERDICT_TEXT: Record<Verdict, { pl: string; en: string }> = {
  fresh: { pl: 'Kreacja działa najlepiej jak dotąd: CTR blisko najlepszego tygodnia, koszt leada nie rośnie.', en: 'At its best: click-through near its best week and cost per lead not rising.' },
  stable: { pl: 'Stabilnie: brak wyraźnych oznak zmęczenia.', en: 'Stable: no clear sign of fatigue.' },
  fatiguing: { pl: 'Pierwsze oznaki zmęczenia: CTR spada od najlepszego tygodnia, a koszt leada lub częstotliwość rosną.', en: 'Tiring: click-through falling from its best week while cost per lead or frequency rises.' },
  fatigued: { pl: 'Kreacja zmęczona: CTR wyraźnie niższy niż w najlepszym tygodniu, koszt leada i częstotliwość rosną. Czas ją wymienić.', en: 'Worn out: click-through well below its best week while cost per lead and frequency rise. Time to replace it.' },
  insufficient_data: { pl: 'Za mało danych: potrzeba co najmniej 3 tygodni po 1000 wyświetleń, w tym ostatniego.', en: 'Not enough data: needs at least 3 weeks of 1,000 impressions, the last week included.' },
};

/** The reason of an insufficient_data verdict given on active weeks that brought no lead at all. */
export const NO_LEADS_TEXT = {
  pl: 'Za mało danych: w ocenianych tygodniach wydatki bez żadnego leada, więc nie ma kosztu leada do porównania.',
  en: 'Not enough data: the weeks judged have spend but no lead at all, so there is no cost per lead to compare.',
};

/** The verdict in words; an insufficient_data verdict says which data is missing. */
export function reasonOf(fatigue: Fatigue, language: 'pl' | 'en'): string {
  if (fatigue.verdict === 'insufficient_data' && fatigue.best_week !== null) return NO_LEADS_TEXT[language];
  return VERDICT_TEXT[fatigue.verdict][language];
}
