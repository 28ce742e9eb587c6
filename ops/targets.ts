// `ops target create | list`: dataset connections; the access token is shown never again after create.
import { createTarget } from '../commands/target/handlers.ts';
import { listTargets } from '../queries/setup.ts';
import { CliError, existingOrganization, platformNumber, required, type CommandGroup } from './context.ts';

export const targetCommands: CommandGroup = {
  create: {
    usage: 'target create --org ID --dataset DATASET_ID --token TOKEN [--mode test|live] [--test-code CODE]',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const datasetId = platformNumber(required(ctx, 'dataset'), 'dataset', 'dataset (pixel) id');
      const token = required(ctx, 'token');
      const testCode = ctx.options['test-code'] === undefined ? null : required(ctx, 'test-code');
      // Without --mode the test code decides: events sent without one count as live at the platform.
      const mode = ctx.options.mode ?? (testCode ? 'test' : 'live');
      if (mode !== 'test' && mode !== 'live') throw new CliError('--mode must be test or live');
      const created = await createTarget(ctx.services.store, ctx.services.secrets.encryptionKey, {
        organizationId, datasetId, token, mode, testCode,
      }, ctx.services.now());
      await ctx.settle(created.position);
      ctx.print(`target ${created.id} created (the token is stored encrypted and is not shown again)`);
      return { id: created.id };
    },
  },
  list: {
    usage: 'target list --org ID',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      await ctx.settle();
      const out = (await listTargets(ctx.services.pool, organizationId)).map((t) => ({
        id: t.id, dataset_id: t.dataset_id, mode: t.mode, test_code: t.test_code, created_at: t.created_at.toISOString(),
      }));
      for (const t of out) ctx.print(`${t.id}  dataset ${t.dataset_id}  ${t.mode}${t.test_code ? ` (${t.test_code})` : ''}`);
      return out;
    },
  },
};
