// Readable tables of the reports for the terminal (the --json output is the API's document).
import type { CampaignReport } from '../queries/reports/campaign.ts';
import type { CreativeReport } from '../queries/reports/creative.ts';
import type { Metrics } from '../queries/reports/metrics.ts';

type Cell = string | number | null;

export function table(header: string[], rows: Cell[][]): string[] {
  const text = rows.map((r) => r.map((c) => (c === null ? '-' : typeof c === 'number' ? c.toLocaleString('en-US', { maximumFractionDigits: 4 }) : c)));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)];
}

const METRIC_HEADER = ['cur', 'spend', 'leads', 'qual', 'rej', 'sales', 'revenue', 'CPL', 'CPQ', 'CPS', 'ROAS'];
const metricCells = (currency: string, m: Metrics): Cell[] =>
  [currency, m.spend, m.leads, m.qualified, m.rejected, m.sales, m.revenue, m.cost_per_lead, m.cost_per_qualified, m.cost_per_sale, m.revenue_per_spend];

function common(report: CampaignReport | CreativeReport): string[] {
  const lines = ['', 'Totals (current | previous period)'];
  lines.push(...table(['', ...METRIC_HEADER], report.totals.flatMap((t) => [
    [`${report.from}..${report.to}`, ...metricCells(t.currency, t.current)],
    [`${report.previous.from}..${report.previous.to}`, ...metricCells(t.currency, t.previous)],
  ])));
  lines.push('', 'Spend syncs');
  lines.push(...table(['account', 'state', 'last success', 'synced days', 'this range', 'error'], report.syncs.map((s) => [
    `${s.account} ${s.name}`, s.state, s.last_success_at, syncedDays(s.synced_ranges), s.covers_range ? 'complete' : 'not all synced', s.last_error || null,
  ])));
  return lines;
}

/** The days the syncs covered, range by range (the newest three, with a count of the older ones). */
export function syncedDays(ranges: { from: string; to: string }[], shown = 3): string | null {
  if (ranges.length === 0) return null;
  const text = ranges.slice(-shown).map((r) => (r.from === r.to ? r.from : `${r.from}..${r.to}`)).join(', ');
  return ranges.length > shown ? `(${ranges.length - shown} earlier), ${text}` : text;
}

export function campaignLines(r: CampaignReport): string[] {
  const lines = [`Campaign report ${r.from}..${r.to}, level ${r.level}, days in ${r.timezone}, as of ${r.as_of}`];
  if (r.maturing) lines.push('Maturing: the range touches the last 30 days, so leads may still qualify and sell.');
  lines.push('', ...table([r.level, ...METRIC_HEADER], r.rows.map((row) => [`${row.name || '(no name)'} [${row.id}]`, ...metricCells(row.currency, row.metrics)])));
  lines.push(...common(r));
  const revenue = r.organic.revenue.map((m) => `${m.amount} ${m.currency}`).join(', ') || '0';
  lines.push('', `Organic leads: ${r.organic.leads} (qualified ${r.organic.qualified}, rejected ${r.organic.rejected}, sold ${r.organic.sales}, revenue ${revenue})`);
  lines.push(`Leads with an ad source but no ${r.level} id: ${r.unattributed}`);
  return lines;
}

export function creativeLines(r: CreativeReport): string[] {
  const lines = [`Creative report ${r.from}..${r.to}, ${r.weeks.length} weeks ending ${r.to}, days in ${r.timezone}, as of ${r.as_of}`, ''];
  const trendHeader = r.weeks.map((w) => `W${w.index} leads`);
  lines.push(...table(['group', 'format', 'tags', 'cur', 'spend', 'leads', 'CPL', 'CTR', 'freq', ...trendHeader, 'momentum', 'fatigue'], r.rows.map((row) => [
    `${row.title || '(untitled)'} [${row.group_id}]`, row.format, row.tags.join(' ') || null, row.currency, row.metrics.spend, row.metrics.leads,
    row.metrics.cost_per_lead, row.delivery.ctr === null ? null : `${(row.delivery.ctr * 100).toFixed(2)}%`, row.delivery.frequency,
    ...row.trend.map((w) => w.leads), row.momentum, row.fatigue.verdict,
  ])));
  lines.push(...common(r));
  lines.push('', `Leads with an ad source but no known creative: ${r.unattributed}`);
  return lines;
}
