// sheets_sync: read a spreadsheet source's published CSV and record each row as a conversion through the
// same command as POST /events. A row sent before is a duplicate (deterministic event id); a row that
// fails validation is counted and named in the summary, never dropped silently.
import { parse } from 'csv-parse/sync';
import { acceptConversion } from '../../../../commands/conversion/handlers.ts';
import { conversionStream } from '../../../../commands/conversion/conversion.ts';
import type { SourceCreatedData } from '../../../../commands/source/source.ts';
import { readSource } from '../../../../commands/source/handlers.ts';
import { scopeId } from '../../../../commands/job/kinds.ts';
import { ApiError } from '../../../../commands/shared/errors.ts';
import { JobError, throwIfAborted, type JobContext, type JobHandler } from '../handler.ts';
import { columnIndex, rowInput } from './sheet-rows.ts';
import { firstFew } from './listed.ts';
import { extraCellsProblem } from '../../../platform/csv-rows.ts';

const MAX_BYTES = 20 * 1024 * 1024;
const LISTED = 50;
/** Rows failed unexpectedly after which the sync stops at once: so many are the store's outage, not a row's fault. */
const MAX_FAILED = 10;

interface Tally {
  rows: number;
  created: number;
  deliveries: number;
  duplicates: number;
  invalid: string[];
  /** Rows whose recording failed unexpectedly (the database, a bug): the job fails after the other rows, to record them again. */
  failed: string[];
}

async function loadSource(ctx: JobContext, sourceId: string): Promise<{ created: SourceCreatedData; paused: boolean }> {
  const { state, created } = await readSource(ctx.services.store, sourceId);
  if (!created || state.organizationId !== ctx.organizationId) throw new JobError(`source ${sourceId} does not exist in this organisation`, true);
  if (created.kind !== 'spreadsheet' || !created.csvUrl) throw new JobError(`source ${sourceId} is not a spreadsheet with a CSV address`, true);
  return { created, paused: state.paused };
}

async function readSheet(url: string, signal: AbortSignal): Promise<string[][]> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]), redirect: 'follow' });
  } catch (error) {
    throw new JobError(`the sheet could not be read: ${(error as Error).message}`);
  }
  if (!res.ok) throw new JobError(`the sheet answered HTTP ${res.status}`, res.status >= 400 && res.status < 500 && res.status !== 429);
  let text: string;
  try {
    text = await readCapped(res);
  } catch (error) {
    if (error instanceof JobError) throw error;
    throw new JobError(`the sheet could not be read: ${(error as Error).message}`);
  }
  try {
    return parse(text, { bom: true, relax_column_count: true }) as string[][];
  } catch (error) {
    throw new JobError(`the sheet is not CSV: ${csvFault(error)}`, true);
  }
}

/**
 * What csv-parse met, without its own message: that quotes the cell ('value is "anna@..."'), and a sheet's
 * e-mails and phones must not reach the job's error (the event store, GET /jobs, logs) unhashed.
 */
function csvFault(error: unknown): string {
  const { code, lines } = error as { code?: unknown; lines?: unknown };
  const what = typeof code === 'string' ? (CSV_FAULTS[code] ?? code) : 'unreadable';
  return typeof lines === 'number' ? `${what} at line ${lines}` : what;
}

const CSV_FAULTS: Record<string, string> = {
  INVALID_OPENING_QUOTE: 'a quote opens inside a cell',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted cell goes on after its closing quote',
  CSV_QUOTE_NOT_CLOSED: 'a quote is never closed',
};

/**
 * The body, refused as soon as it passes MAX_BYTES: a huge or endless answer is not held in memory first (the whole
 * body used to be read, up to the 30 s time-out, before its size was looked at).
 */
async function readCapped(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early (the throw) cancels the stream and so the download.
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_BYTES) throw new JobError(`the sheet is larger than ${MAX_BYTES} bytes`, true);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The sheet's rows that hold something, each with its number in the sheet (as the summary names it): a blank
 * row (an empty line, or only separators) is no row but keeps its number, and a quoted cell written on two
 * lines is one row. (Empty lines used to be skipped before counting, so every later row was named too early,
 * and a row of separators only was listed as invalid.)
 */
function sheetRows(records: string[][]): { cells: string[]; number: number }[] {
  return records.map((cells, at) => ({ cells, number: at + 1 })).filter((row) => row.cells.some((cell) => cell.trim() !== ''));
}

/** True when this call made the conversion: its first event carries the causation id given to it. */
async function madeBy(ctx: JobContext, eventId: string, causationId: string): Promise<boolean> {
  const [first] = await ctx.services.store.readStream(conversionStream(eventId), { maxCount: 1 });
  return first?.metadata.causationId === causationId;
}

async function recordRow(ctx: JobContext, cells: string[], line: number, index: ReturnType<typeof columnIndex>, sourceId: string, tally: Tally): Promise<void> {
  const row = rowInput(cells, index, ctx.organizationId, sourceId);
  if (!row.ok) {
    tally.invalid.push(`row ${line}: ${row.error}`);
    return;
  }
  const causationId = `${ctx.metadata.correlationId}/attempt-${ctx.attempt}/row-${line}`;
  try {
    const accepted = await acceptConversion(ctx.services, row.input, { ...ctx.metadata, causationId });
    if (await madeBy(ctx, accepted.eventId, causationId)) tally.created += 1;
    else tally.duplicates += 1;
    // A row recorded before (e.g. by the sync at the source's creation, before its flows) queues what new flows ask for.
    tally.deliveries += accepted.deliveriesCreated;
  } catch (error) {
    if (!(error instanceof ApiError)) {
      ctx.log.error('sheets_sync: recording a row failed', { error, row: line });
      tally.failed.push(`row ${line}`);
      return;
    }
    if (error.code === 'source_paused') throw error;
    const field = (error.details?.fields as { field: string; message: string }[] | undefined)?.[0];
    tally.invalid.push(`row ${line}: ${field ? `${field.field}: ${field.message}` : (error.hint ?? error.code)}`);
  }
}

function summaryOf(t: Tally): string {
  const listed = t.invalid.slice(0, LISTED).join('; ');
  const more = t.invalid.length > LISTED ? `; and ${t.invalid.length - LISTED} more` : '';
  const invalid = t.invalid.length ? `; ${t.invalid.length} invalid: ${listed}${more}` : '; 0 invalid';
  return `${t.rows} rows: ${t.created} new conversions (${t.deliveries} deliveries queued), ${t.duplicates} already recorded${invalid}`;
}

export const sheetsSyncJob: JobHandler = async (ctx) => {
  const sourceId = scopeId(ctx.scope, 'source');
  if (!sourceId) throw new JobError(`sheets_sync needs a source scope, not ${ctx.scope}`, true);
  const { created, paused } = await loadSource(ctx, sourceId);
  if (paused) return { summary: 'the source is paused: the sheet was not read' };
  const rows = sheetRows(await readSheet(created.csvUrl!, ctx.signal));
  const header = rows.shift();
  if (!header) return { summary: '0 rows: the sheet is empty' };
  const index = columnIndex(header.cells, created.columns);
  const tally: Tally = { rows: rows.length, created: 0, deliveries: 0, duplicates: 0, invalid: [], failed: [] };
  try {
    for (const [i, row] of rows.entries()) {
      throwIfAborted(ctx.signal);
      const shifted = extraCellsProblem(row.cells, header.cells.length);
      if (shifted) tally.invalid.push(`row ${row.number}: ${shifted}`);
      else await recordRow(ctx, row.cells, row.number, index, sourceId, tally);
      ctx.progress(i + 1, `${i + 1} of ${rows.length} rows`);
      if (tally.failed.length >= MAX_FAILED) throw new JobError(`${failedSaid(tally)}; stopped after row ${row.number}, the rows before are in`);
    }
  } catch (error) {
    if (error instanceof ApiError && error.code === 'source_paused') return { summary: `the source was paused during the sync; stopped. ${summaryOf(tally)}` };
    throw error;
  }
  // The retry records them (the other rows are duplicates by then, so nothing is sent twice).
  if (tally.failed.length) throw new JobError(`${failedSaid(tally)}, the others are in; ${summaryOf(tally)}`);
  return { summary: summaryOf(tally) };
};

const failedSaid = (t: Tally) => `${t.failed.length} rows could not be recorded (${firstFew(t.failed, LISTED)})`;
