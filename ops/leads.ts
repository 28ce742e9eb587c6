// `ops leads import --org ID --file F`: the platform's lead export (JSON array of Graph lead objects, or
// the Ads Manager CSV), each lead through the same intake as the webhook; idempotent on platform_lead_id.
import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { receiveLead } from '../commands/lead/intake.ts';
import { decodeExportFile, LeadExportError, parseLeadExport, type PlatformLead } from '../src/platform/leads.ts';
import { CliError, required, type CommandGroup, type CliContext } from './context.ts';

function readExport(file: string): PlatformLead[] {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const text = decodeExportFile(bytes);
  const format = path.extname(file).toLowerCase() === '.csv' || !/^\s*[[{]/.test(text) ? 'csv' : 'json';
  try {
    return parseLeadExport(text, format);
  } catch (error) {
    if (error instanceof LeadExportError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

/** A bar on a terminal only: piped output and --json stay clean. */
function progress(ctx: CliContext, total: number) {
  if (ctx.json || !process.stdout.isTTY) return { tick() {}, stop() {} };
  const bar = new cliProgress.SingleBar({ format: 'leads {bar} {value}/{total} ({percentage}%)', hideCursor: true }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  return { tick: () => bar.increment(), stop: () => bar.stop() };
}

export const leadCommands: CommandGroup = {
  import: {
    usage: 'leads import --org ID --file F (the platform\'s JSON or CSV lead export)',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const leads = readExport(required(ctx, 'file'));
      const bar = progress(ctx, leads.length);
      let created = 0;
      const metadata = { organizationId, actor: 'operator' };
      try {
        for (const lead of leads) {
          const received = await receiveLead(ctx.services, { organizationId, lead, via: 'import' }, metadata);
          if (received.created) created++;
          bar.tick();
        }
      } finally {
        bar.stop();
      }
      await ctx.settle();
      ctx.print(`${leads.length} leads read: ${created} new, ${leads.length - created} already known`);
      return { read: leads.length, created, known: leads.length - created };
    },
  },
};
