// A whole lead export file, JSON or CSV, read into platform leads (lead-export-stream.ts reads one as it arrives).
import { parseCsv } from './lead-export-csv.ts';
import { EMPTY_EXPORT, LeadExportError, leadFromJsonItem, NOT_A_LEAD_LIST, type PlatformLead } from './lead-export.ts';

function parseJson(text: string, timezone: string): PlatformLead[] {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new LeadExportError(`not JSON: ${(err as Error).message}`, null);
  }
  const list = Array.isArray(data) ? data : (data as { data?: unknown } | null)?.data;
  if (!Array.isArray(list)) throw new LeadExportError(NOT_A_LEAD_LIST, null);
  return list.map((item, i) => leadFromJsonItem(item, i + 1, timezone));
}

/** The platform's lead export, JSON (Graph lead objects plus form_name) or the Ads Manager CSV, as leads.
 *  Throws LeadExportError naming the row for a file it cannot read. */
export function parseLeadExport(text: string, format: 'json' | 'csv', timezone = 'UTC'): PlatformLead[] {
  if (text.trim() === '') throw new LeadExportError(EMPTY_EXPORT, null);
  if (format === 'json') return parseJson(text, timezone);
  if (format === 'csv') return parseCsv(text, timezone);
  const never: never = format;
  throw new LeadExportError(`unknown export format ${String(never)}`, null);
}

/** Lead exports from Ads Manager come as UTF-16 with a byte-order mark; others as UTF-8. */
export function decodeExportFile(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}
