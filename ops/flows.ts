// `ops flow create | list | deactivate | activate`: which caller status or lead stage becomes which platform event.
import { activateFlow, createFlow, deactivateFlow } from '../commands/flow/handlers.ts';
import type { FlowTrigger } from '../commands/flow/flow.ts';
import { listFlows } from '../queries/setup.ts';
import { CliError, existingOrganization, positional, required, type CliContext, type CommandGroup } from './context.ts';

function trigger(ctx: CliContext): FlowTrigger {
  const status = ctx.options.status;
  const stage = ctx.options.stage;
  if ((status === undefined) === (stage === undefined)) throw new CliError('give exactly one of --status S or --stage STAGE');
  return status !== undefined ? { kind: 'status', status } : { kind: 'stage', stage: stage! };
}

async function change(ctx: CliContext, what: 'deactivate' | 'activate') {
  const flowId = positional(ctx, 0, 'flow id');
  const now = ctx.services.now();
  const position = what === 'deactivate' ? await deactivateFlow(ctx.services.store, flowId, now) : await activateFlow(ctx.services.store, flowId, now);
  if (position) await ctx.settle(position);
  ctx.print(`flow ${flowId} ${what}d`);
  return { id: flowId, active: what === 'activate' };
}

export const flowCommands: CommandGroup = {
  create: {
    usage: 'flow create --source ID --target ID --event-name NAME (--status S | --stage STAGE)',
    async run(ctx) {
      const sourceId = required(ctx, 'source');
      const targetId = required(ctx, 'target');
      const eventName = required(ctx, 'event-name');
      const created = await createFlow(ctx.services.store, { sourceId, targetId, eventName, trigger: trigger(ctx) }, ctx.services.now());
      await ctx.settle(created.position);
      ctx.print(`flow ${created.id} created`);
      return { id: created.id };
    },
  },
  list: {
    usage: 'flow list --org ID',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      await ctx.settle();
      const out = (await listFlows(ctx.services.pool, organizationId)).map((f) => ({
        id: f.id, source_id: f.source_id, target_id: f.target_id, event_name: f.event_name,
        status: f.trigger_kind === 'status' ? f.trigger_value : null,
        stage: f.trigger_kind === 'stage' ? f.trigger_value : null, active: f.active, created_at: f.created_at.toISOString(),
      }));
      // The trigger is what tells two flows of one source and target apart (paid -> Purchase, refunded -> Refund).
      const when = (f: (typeof out)[number]) => (f.status !== null ? `status ${f.status}` : `stage ${f.stage}`);
      for (const f of out) ctx.print(`${f.id}  source ${f.source_id} -> target ${f.target_id}  ${f.event_name} on ${when(f)}${f.active ? '' : '  (inactive)'}`);
      return out;
    },
  },
  deactivate: { usage: 'flow deactivate ID', run: (ctx) => change(ctx, 'deactivate') },
  activate: { usage: 'flow activate ID', run: (ctx) => change(ctx, 'activate') },
};
