// `ops source create | list | pause | resume`: where conversions come from.
import { createSource, pauseSource, resumeSource } from '../commands/source/handlers.ts';
import { SOURCE_KINDS } from '../commands/source/source.ts';
import { ApiError } from '../commands/shared/errors.ts';
import { EVENT_FIELDS } from '../commands/conversion/fields.ts';
import { listSources } from '../queries/setup.ts';
import { CliError, existingOrganization, platformNumber, positional, required, type CommandGroup, type CliContext } from './context.ts';

/** "--columns external_id=Order,status=Stage" -> { external_id: 'Order', status: 'Stage' } */
export function parseColumns(text: string): Record<string, string> {
  const columns: Record<string, string> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const field = part.slice(0, at).trim();
    const header = part.slice(at + 1).trim();
    if (at < 1 || header === '') throw new CliError(`--columns takes field=Header pairs, got "${part}"`);
    if (!(EVENT_FIELDS as readonly string[]).includes(field)) throw new CliError(`--columns: unknown field ${field} (known: ${EVENT_FIELDS.join(', ')})`);
    // A field reads one column: the header typed last would win without a word, as an option given twice would.
    if (Object.hasOwn(columns, field)) throw new CliError(`--columns gives ${field} two headers: ${columns[field]} and ${header}`);
    columns[field] = header;
  }
  return columns;
}

async function change(ctx: CliContext, what: 'pause' | 'resume') {
  const sourceId = positional(ctx, 0, 'source id');
  const now = ctx.services.now();
  const position = what === 'pause' ? await pauseSource(ctx.services.store, sourceId, now) : await resumeSource(ctx.services.store, sourceId, now);
  if (position) await ctx.settle(position);
  ctx.print(`source ${sourceId} ${what === 'pause' ? 'paused' : 'resumed'}`);
  return { id: sourceId, paused: what === 'pause' };
}

export const sourceCommands: CommandGroup = {
  create: {
    usage: 'source create --org ID --kind spreadsheet|shop|form --name N [--csv-url URL] [--columns field=Header,...] [--form-id PLATFORM_FORM_ID]',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const kind = required(ctx, 'kind');
      const name = required(ctx, 'name');
      if (!(SOURCE_KINDS as readonly string[]).includes(kind)) throw new CliError(`--kind must be one of ${SOURCE_KINDS.join(', ')}`);
      const columns = ctx.options.columns !== undefined ? parseColumns(ctx.options.columns) : null;
      if (columns && kind !== 'spreadsheet') throw new CliError('--columns belongs to a spreadsheet source');
      // A shop or sheet has no platform form: the id would be stored and listed as if it had.
      if (ctx.options['form-id'] !== undefined && kind !== 'form') throw new CliError('--form-id belongs to a form source');
      const platformFormId = ctx.options['form-id'] === undefined ? null : platformNumber(required(ctx, 'form-id'), 'form-id', 'form id');
      // A form source takes the id its leads find it by (createSource): a second one for the form is a conflict.
      const created = await createSource(ctx.services.store, {
        organizationId, kind, name, csvUrl: ctx.options['csv-url'] ?? null, columns, platformFormId,
      }, ctx.services.now()).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'conflict') throw new CliError(`form ${platformFormId} already has its source ${error.details?.source_id}`);
        throw error;
      });
      await ctx.settle(created.position);
      ctx.print(`source ${created.id} created`);
      return { id: created.id };
    },
  },
  list: {
    usage: 'source list --org ID',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      await ctx.settle();
      const out = (await listSources(ctx.services.pool, organizationId)).map((s) => ({
        id: s.id, kind: s.kind, name: s.name, platform_form_id: s.platform_form_id, paused: s.paused,
      }));
      for (const s of out) ctx.print(`${s.id}  ${s.kind.padEnd(11)}  ${s.name}${s.paused ? '  (paused)' : ''}`);
      return out;
    },
  },
  pause: { usage: 'source pause ID', run: (ctx) => change(ctx, 'pause') },
  resume: { usage: 'source resume ID', run: (ctx) => change(ctx, 'resume') },
};
