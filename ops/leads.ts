// `ops leads import --org ID --file F`: the platform's lead export (JSON array of Graph lead objects, or
// the Ads Manager CSV), each lead through the same intake as the webhook; idempotent on platform_lead_id.
// The file is streamed twice: a first reading checks every lead (a file with a bad row is refused whole,
// nothing imported), a second imports them, several at a time; memory stays the same whatever the file's size.
import fs from 'node:fs/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { countryCode, importCounts, receiveLead } from '../commands/lead/intake.ts';
import { inLanes, laneKeys } from '../commands/lead/lanes.ts';
import { organizationSettings } from '../commands/contact/writes.ts';
import { LeadExportError, type PlatformLead } from '../src/platform/leads.ts';
import { readLeadExport } from '../src/platform/lead-export-stream.ts';
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
async function* leadsOf(file: fs.FileHandle, name: string, timezone: string, onBytes?: (bytes: number) => void): AsyncGenerator<PlatformLead> {
  try {
    yield* readLeadExport({ file, name, timezone, onBytes });
  } catch (error) {
    if (error instanceof LeadExportError) throw new CliError(`${name}: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code) throw cannotRead(name, error);
    throw error;
  }
}

/** First reading: every lead checked, none kept; the number of leads. */
async function checkAll(ctx: CliContext, file: fs.FileHandle, name: string, timezone: string): Promise<number> {
  const bar = progress(ctx, 'checking {bar} {percentage}%', (await file.stat()).size);
  let count = 0;
  try {
    for await (const _lead of leadsOf(file, name, timezone, (bytes) => bar.update(bytes))) count++;
  } finally {
    bar.stop();
  }
  return count;
}

/** The file must be the one checked: a file changed between the readings could import a bad row. */
async function sameFile(file: fs.FileHandle, name: string, checked: { size: number; mtimeMs: number }): Promise<void> {
  const now = await file.stat();
  if (now.size !== checked.size || now.mtimeMs !== checked.mtimeMs) throw new CliError(`${name} changed while it was read; nothing imported`);
}

export const leadCommands: CommandGroup = {
  import: {
    usage: 'leads import --org ID --file F (the platform\'s JSON or CSV lead export)',
    async run(ctx) {
      // An unknown organisation is the same not_found as in every command, and refused before a long file is read.
      const organizationId = await existingOrganization(ctx);
      const name = required(ctx, 'file');
      const file = await fs.open(path.resolve(ctx.callerDir, name), 'r').catch((error) => { throw cannotRead(name, error); });
      try {
        const checked = await file.stat();
        // A created_time written without a zone is a time in the organisation's zone (as GET /leads reads one).
        const timezone = (await organizationSettings(ctx.services.store, organizationId))?.timezone ?? 'UTC';
        const total = await checkAll(ctx, file, name, timezone);
        await sameFile(file, name, checked);
        const { created, completed } = await importAll(ctx, { organizationId, file, name, timezone, total });
        await ctx.settle();
        const known = total - created - completed;
        ctx.print(`${total} leads read: ${importCounts({ created, completed, known })}`);
        return { read: total, created, completed, known };
      } finally {
        await file.close();
      }
    },
  },
};

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
  // Read once for every lead (the organisation was checked before the file was read).
  const cc = await countryCode(ctx.services, organizationId);
  try {
    await inLanes(leadsOf(file, name, timezone), IMPORT_WIDTH, (lead) => laneKeys(lead, cc), async (lead) => {
      const received = await receiveLead(ctx.services, { organizationId, lead, via: 'import', phoneCountryCode: cc }, metadata);
      if (received.created) created++;
      if (received.completed) completed++;
      bar.update(++done);
    });
  } finally {
    bar.stop();
  }
  return { created, completed };
}
