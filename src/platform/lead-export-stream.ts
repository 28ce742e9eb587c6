// The platform's lead export read as a stream: decoded (UTF-8, or UTF-16 after its byte-order mark), told
// JSON from CSV by its name or first character, and given lead by lead: memory stays the same whatever its size.
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { checkHeaderOnly, csvOptions, delimiterOf, isBlankRecord, leadFromCsvRecord } from './lead-export-csv.ts';
import { EMPTY_EXPORT, LeadExportError, leadFromJsonItem, type PlatformLead } from './lead-export.ts';
import { JsonItemReader, MAX_ITEM_CHARS, type JsonItem } from './json-items.ts';

export interface ExportSource {
  file: FileHandle;
  /** The file's name: a .csv is read as CSV whatever it begins with. */
  name: string;
  /** Told the bytes read so far, after each piece. */
  onBytes?: (bytes: number) => void;
  /** The organisation's zone, for a created_time written without one (default UTC). */
  timezone?: string;
  /**
   * Told each lead that cannot be taken (a lead without an id or a form, a time that is no time), which is then left
   * out; without it the first such lead ends the reading. A file that is not an export at all always ends it.
   */
  onBadRow?: (bad: BadRow) => void;
}

/** A lead of the file left out: its row (its place in the JSON array, or its row in the CSV, the header being 1), its id as written, why. */
export interface BadRow {
  row: number;
  platformLeadId: string;
  reason: string;
}

/** The lead of one row, or null when it cannot be taken and the reader asked to be told (`onBadRow`). */
function leadOrBadRow(source: ExportSource, row: number, rawId: unknown, read: () => PlatformLead): PlatformLead | null {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof LeadExportError) || error.row === null || !source.onBadRow) throw error;
    const platformLeadId = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId).trim().replace(/^l:/, '') : '';
    source.onBadRow({ row, platformLeadId, reason: error.message.replace(/^row \d+: /, '') });
    return null;
  }
}

const CHUNK_BYTES = 1 << 16;
const hasText = (text: string) => /\S/.test(text);

/** The file's text piece by piece, from its first byte (each call reads it again). */
async function* textOf(source: ExportSource): AsyncGenerator<string> {
  // One buffer for every read: the decoder copies what it decodes.
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let decoder: TextDecoder | null = null;
  let read = 0;
  for (;;) {
    const { bytesRead } = await source.file.read(buffer, 0, CHUNK_BYTES, read);
    if (bytesRead === 0) break;
    // Ads Manager downloads are UTF-16 with a byte-order mark; the decoders drop either byte-order mark.
    decoder ??= new TextDecoder(buffer[0] === 0xff && buffer[1] === 0xfe && bytesRead > 1 ? 'utf-16le' : 'utf-8');
    read += bytesRead;
    source.onBytes?.(read);
    const text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder?.decode() ?? '';
  if (rest !== '') yield rest;
}

async function* withHead(head: string, texts: AsyncGenerator<string>): AsyncGenerator<string> {
  if (head !== '') yield head;
  yield* texts;
}

/** Text from `texts` added to `head` until `enough` says so (or the file ends); bounded like one item. */
async function gatherHead(head: string, texts: AsyncGenerator<string>, enough: (head: string) => boolean): Promise<string> {
  while (!enough(head) && head.length <= MAX_ITEM_CHARS) {
    const next = await texts.next();
    if (next.done) break;
    head += next.value;
  }
  return head;
}

/** The leads of the export in file order; throws LeadExportError naming the row at the first it cannot take (unless told `onBadRow`). */
export async function* readLeadExport(source: ExportSource): AsyncGenerator<PlatformLead> {
  const texts = textOf(source);
  try {
    const head = await gatherHead('', texts, hasText);
    if (!hasText(head)) {
      if (head.length > MAX_ITEM_CHARS) throw new LeadExportError(`the file begins with over ${MAX_ITEM_CHARS} blank characters`, null);
      throw new LeadExportError(EMPTY_EXPORT, null);
    }
    const csv = path.extname(source.name).toLowerCase() === '.csv' || !/^\s*[[{]/.test(head);
    yield* csv ? csvLeads(source, head, texts) : jsonLeads(source, withHead(head, texts));
  } finally {
    await texts.return(undefined);
  }
}

async function* jsonLeads(source: ExportSource, texts: AsyncGenerator<string>): AsyncGenerator<PlatformLead> {
  const timezone = source.timezone ?? 'UTC';
  const reader = new JsonItemReader();
  const items: JsonItem[] = [];
  for await (const text of texts) {
    reader.push(text, items);
    for (const { item, row } of items) {
      const lead = leadOrBadRow(source, row, (item as { id?: unknown } | null)?.id, () => leadFromJsonItem(item, row, timezone));
      if (lead) yield lead;
    }
    items.length = 0;
  }
  reader.end();
}

async function* csvLeads(source: ExportSource, start: string, texts: AsyncGenerator<string>): AsyncGenerator<PlatformLead> {
  const timezone = source.timezone ?? 'UTC';
  // The separator is the header line's: read up to its end first.
  const head = await gatherHead(start, texts, (text) => text.includes('\n'));
  const parser = parse({ ...csvOptions(delimiterOf(head)), max_record_size: MAX_ITEM_CHARS });
  // pipeline: a reader that stops early (a refused row) stops the file's reading too.
  const records = pipeline(Readable.from(withHead(head, texts)), parser, () => {});
  // The header is row 1; a blank row is no lead but keeps its number.
  let row = 1;
  let filled = 0;
  try {
    for await (const record of records) {
      const r = record as Record<string, string>;
      row++;
      if (isBlankRecord(r)) continue;
      filled++;
      const lead = leadOrBadRow(source, row, r.id, () => leadFromCsvRecord(r, row, timezone));
      if (lead) yield lead;
    }
    if (filled === 0) checkHeaderOnly(head);
  } catch (error) {
    if (error instanceof CsvError) throw new LeadExportError(`cannot read the CSV: ${error.message}`, null);
    throw error;
  }
}
