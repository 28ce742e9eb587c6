// `ops leads import --org ID --file F`: the platform's lead export (JSON array of Graph lead objects, or
// the Ads Manager CSV), each lead through the same intake as the webhook; idempotent on platform_lead_id.
// The file is streamed twice: a first reading checks every lead (a file with bad rows is refused whole, every bad
// row named, nothing imported, unless --skip-invalid leaves them out and names them after importing the others), a
// second imports them, several at a time; memory stays the same whatever the file's size.
import fs from 'node:fs/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { countryCode, importCounts, receiveLead } from '../commands/lead/intake.ts';
import { inLanes, laneKeys } from '../commands/lead/lanes.ts';
import { organizationSettings } from '../commands/contact/writes.ts';
import { LeadExportError, type PlatformLead } from '../src/platform/leads.ts';
import { readLeadExport, type BadRow } from '../src/platform/lead-export-stream.ts';
import { ApiError } from '../commands/shared/errors.ts';
import { MESSAGES } from '../src/http/messages.ts';
import { CliError, existingOrganization, required, type CommandGroup, type CliContext } from './context.ts';

interface Bar {
  update(value: number): void;
  stop(): void;
}

/** A bar on a terminal only: piped output and --json stay clean. */
function progress(ctx: CliContext, format: string, total: number): Bar {
  if (ctx.json || !process.stdout.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar({ format, hideCursor: true }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  return { update: (value) => bar.update(value), stop: () => bar.stop() };
}

const cannotRead = (name: string, error: unknown) =>
  new CliError(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);

/** The export's leads, read from the start again; errors as the CLI's one line. */
async function* leadsOf(file: fs.FileHandle, name: string, timezone: string, onBadRow: (bad: BadRow) => void, onBytes?: (bytes: number) => void): AsyncGenerator<PlatformLead> {
  try {
    yield* readLeadExport({ file, name, timezone, onBytes, onBadRow });
  } catch (error) {
    if (error instanceof LeadExportError) throw new CliError(`${name}: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code) throw cannotRead(name, error);
    throw error;
  }
}

/** First reading: every lead checked, none kept; the number of good leads, and the bad rows. */
async function checkAll(ctx: CliContext, file: fs.FileHandle, name: string, timezone: string): Promise<{ good: number; bad: BadRow[] }> {
  const bar = progress(ctx, 'checking {bar} {percentage}%', (await file.stat()).size);
  const bad: BadRow[] = [];
  let good = 0;
  try {
    for await (const _lead of leadsOf(file, name, timezone, (row) => bad.push(row), (bytes) => bar.update(bytes))) good++;
  } finally {
    bar.stop();
  }
  return { good, bad };
}

/** Bad rows named in one line: the first LISTED of them. */
const LISTED = 20;
const rowsSaid = (bad: BadRow[]) =>
  `${bad.slice(0, LISTED).map((b) => `row ${b.row}: ${b.reason}`).join('; ')}${bad.length > LISTED ? `; and ${bad.length - LISTED} more rows` : ''}`;

/**
 * A file with bad rows is refused whole unless --skip-invalid says to leave them out (an error changes nothing);
 * every bad row is named at once, so the file is mended in one go. One with no good lead is refused either way.
 */
function refusal(name: string, good: number, bad: BadRow[], skip: boolean): CliError | null {
  if (bad.length === 0 || (skip && good > 0)) return null;
  const why = good === 0 ? 'no lead of the file can be imported' : `--skip-invalid imports the other ${good} leads and leaves ${bad.length === 1 ? 'this one' : 'these'} out`;
  return new CliError(`${name}: ${rowsSaid(bad)}; nothing imported (${why})`);
}

/** The file must be the one checked: a file changed between the readings could import a bad row. */
async function sameFile(file: fs.FileHandle, name: string, checked: { size: number; mtimeMs: number }): Promise<void> {
  const now = await file.stat();
  if (now.size !== checked.size || now.mtimeMs !== checked.mtimeMs) throw new CliError(`${name} changed while it was read; nothing imported`);
}

export const leadCommands: CommandGroup = {
  import: {
    usage: 'leads import --org ID --file F [--skip-invalid] (the platform\'s JSON or CSV lead export)',
    async run(ctx) {
      // An unknown organisation is the same not_found as in every command, and refused before a long file is read.
      const organizationId = await existingOrganization(ctx);
      const name = required(ctx, 'file');
      const file = await fs.open(path.resolve(ctx.callerDir, name), 'r').catch((error) => { throw cannotRead(name, error); });
      try {
        const checked = await file.stat();
        const skip = ctx.options['skip-invalid'] === 'true';
        // A created_time written without a zone is a time in the organisation's zone (as GET /leads reads one).
        const timezone = (await organizationSettings(ctx.services.store, organizationId))?.timezone ?? 'UTC';
        const { good, bad } = await checkAll(ctx, file, name, timezone);
        const refused = refusal(name, good, bad, skip);
        if (refused) throw refused;
        await sameFile(file, name, checked);
        const { created, completed } = await importAll(ctx, { organizationId, file, name, timezone, total: good });
        await ctx.settle();
        const known = good - created - completed;
        const left = bad.length ? `; ${bad.length} left out: ${rowsSaid(bad)}` : '';
        ctx.print(`${good + bad.length} leads read: ${importCounts({ created, completed, known })}${left}`);
        if (!skip) return { read: good, created, completed, known };
        return { read: good + bad.length, created, completed, known, refused: bad.map((b) => ({ row: b.row, platform_lead_id: b.platformLeadId, reason: b.reason })) };
      } finally {
        await file.close();
      }
    },
  },
};

/**
 * A lead the store would not take (the database went away, a fault of ours): the leads before it are in, so the
 * operator is told how far it got and that the same file again adds only the rest (the intake is idempotent).
 */
function stopped(name: string, platformLeadId: string, done: number, total: number, error: unknown): CliError {
  const why = error instanceof ApiError ? `${error.code}: ${error.hint ?? MESSAGES[error.code].en}` : (error as Error | undefined)?.message ?? String(error);
  return new CliError(`${name}: the import stopped at lead ${platformLeadId} with ${done} of ${total} leads in (importing the file again adds only the others): ${why}`);
}

/** Leads in flight at once: enough to overlap their round trips to the store on two cores (measured: docs/contacts-and-leads.md). */
const IMPORT_WIDTH = 4;

/**
 * Second reading: the leads imported, one person's in file order (lanes.ts); how many were new, and how many were
 * known without their data (the webhook's, pending or failed) and completed from the file.
 */
async function importAll(ctx: CliContext, input: { organizationId: string; file: fs.FileHandle; name: string; timezone: string; total: number }): Promise<{ created: number; completed: number }> {
  const { organizationId, file, name, timezone, total } = input;
  const bar = progress(ctx, 'leads {bar} {value}/{total} ({percentage}%)', total);
  const metadata = { organizationId, actor: 'operator' };
  let done = 0;
  let created = 0;
  let completed = 0;
  let stoppedAt = null as string | null; // set from the lanes
  // Read once for every lead (the organisation was checked before the file was read).
  const cc = await countryCode(ctx.services, organizationId);
  try {
    // The bad rows were counted by the first reading; this one passes over them.
    await inLanes(leadsOf(file, name, timezone, () => {}), IMPORT_WIDTH, (lead) => laneKeys(lead, cc), async (lead) => {
      const received = await receiveLead(ctx.services, { organizationId, lead, via: 'import', phoneCountryCode: cc }, metadata)
        .catch((error: unknown) => { stoppedAt ??= lead.platformLeadId; throw error; });
      if (received.created) created++;
      if (received.completed) completed++;
      bar.update(++done);
    });
  } catch (error) {
    // Thrown once the leads in flight have ended: `done` is what is in.
    if (stoppedAt === null || error instanceof CliError) throw error;
    throw stopped(name, stoppedAt, done, total, error);
  } finally {
    bar.stop();
  }
  return { created, completed };
}
