// The Ads Manager CSV lead export: its separator, how csv-parse reads it, and each row as a platform lead.
import { parse } from 'csv-parse/sync';
import type { CsvError, InfoRecord } from 'csv-parse';
import { extraCellsProblem } from './csv-rows.ts';
import { exportedLead, labelFor, LeadExportError, mapLead, type GraphLeadObject, type PlatformLead } from './lead-export.ts';

const CSV_META = new Set(['id', 'created_time', 'ad_id', 'ad_name', 'adset_id', 'adset_name', 'campaign_id', 'campaign_name', 'form_id', 'form_name', 'is_organic', 'platform', 'page_id', 'lead_status', 'inbox_url']);
// Ads Manager prefixes ids in its CSV: l:123 (lead), ag:123 (ad), as:123 (ad set), c:123 (campaign), f:123 (form).
const unprefix = (v: string | undefined): string | undefined => v?.trim().replace(/^(?:l|ag|as|c|f|p):/, '');
// ... and phone numbers (p:+48601234567), so that a spreadsheet keeps them as text.
const PHONE_KEYS = new Set(['phone_number', 'phone', 'work_phone_number']);
const csvValue = (key: string, value: string): string => (PHONE_KEYS.has(key) ? value.replace(/^p:/, '') : value);

/** The export's separator: the one of tab, comma and semicolon its header line has most of. */
export function delimiterOf(text: string): string {
  const end = text.indexOf('\n');
  const header = end < 0 ? text : text.slice(0, end);
  const counts = ['\t', ',', ';'].map((d) => [d, header.split(d).length] as const);
  return counts.sort((a, b) => b[1] - a[1])[0][0];
}

/** On a record with filled cells past its header's columns (csvOptions marks it): what is wrong with it. */
const EXTRA_CELLS = Symbol('extra cells');
type CsvRecord = Record<string, string> & { [EXTRA_CELLS]?: string };

/**
 * Marks a record read shifted ("Kowalski, Jan" unquoted: the e-mail answer read "Jan" and the phone an e-mail
 * address), to be refused by its row in leadFromCsvRecord.
 */
function markExtraCells<T>(record: T, context: InfoRecord): T {
  const header = (context as InfoRecord & { columns?: unknown }).columns;
  const error = context.error as (CsvError & { record?: unknown }) | undefined;
  if (error?.code !== 'CSV_RECORD_INCONSISTENT_COLUMNS' || !Array.isArray(error.record)) return record;
  const problem = extraCellsProblem(error.record, Array.isArray(header) ? header.length : 0);
  if (problem) (record as CsvRecord)[EXTRA_CELLS] = problem;
  return record;
}

/**
 * How csv-parse reads the Ads Manager export (one record a row, keyed by the header). Empty lines are records too,
 * so that each record's place is its row in the sheet (isBlankRecord passes over them).
 */
export const csvOptions = (delimiter: string) => ({ columns: true, bom: true, trim: true, delimiter, relax_column_count: true, on_record: markExtraCells }) as const;

/**
 * A blank row (an empty line, or only separators): no lead, but it keeps its row number, so a bad row is named by
 * its row in the sheet, as sheets_sync names one. Empty lines used to be skipped before counting, so every row
 * after one was named too early, and a row of separators only refused the file as a lead without an id.
 */
export const isBlankRecord = (r: Record<string, string>): boolean => Object.values(r).every((value) => (value ?? '') === '');

/**
 * One record of the Ads Manager CSV (keyed by its header) as a lead; `row` is its row in the sheet, the header being 1;
 * `timezone` the organisation's, for a created_time written without a zone.
 */
export function leadFromCsvRecord(r: Record<string, string>, row: number, timezone: string): PlatformLead {
  const shifted = (r as CsvRecord)[EXTRA_CELLS];
  if (shifted) throw new LeadExportError(shifted, row);
  const answers = Object.keys(r)
    .filter((h) => !CSV_META.has(h) && (r[h] ?? '') !== '')
    .map((h) => {
      const key = h.trim().toLowerCase().replace(/\s+/g, '_');
      return { key, label: labelFor(h), values: [csvValue(key, r[h])] };
    });
  const g: GraphLeadObject = {
    ...r,
    id: unprefix(r.id) ?? '',
    created_time: r.created_time ?? '',
    ad_id: unprefix(r.ad_id),
    adset_id: unprefix(r.adset_id),
    campaign_id: unprefix(r.campaign_id),
    form_id: unprefix(r.form_id),
    page_id: unprefix(r.page_id) || undefined,
    is_organic: (r.is_organic ?? '').toLowerCase(),
  };
  return exportedLead(mapLead(g, answers, r.form_name || null, row, timezone), row);
}

export function parseCsv(text: string, timezone: string): PlatformLead[] {
  const records = parse(text, csvOptions(delimiterOf(text))) as Array<Record<string, string>>;
  const rows = records.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => !isBlankRecord(r));
  if (rows.length === 0) checkHeaderOnly(text);
  return rows.map(({ r, row }) => leadFromCsvRecord(r, row, timezone));
}

/**
 * A CSV with no row is the export of a form with no lead only when its header is the export's (it has `id`):
 * any one-line text (a note, another sheet) reads as such a CSV, and "0 leads read" would hide the wrong file.
 * (With rows, each row without an id is refused by its row number.)
 */
export function checkHeaderOnly(text: string): void {
  const end = text.indexOf('\n');
  const line = end < 0 ? text : text.slice(0, end);
  let header: string[] = [];
  try {
    [header = []] = parse(line, { bom: true, trim: true, delimiter: delimiterOf(line), relax_quotes: true }) as string[][];
  } catch { /* not even a CSV line: no id column either */ }
  if (!header.includes('id')) throw new LeadExportError('not the platform\'s lead export: no row, and the CSV header has no id column', null);
}
