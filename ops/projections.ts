// `ops projections status | rebuild NAME | rebuild --all`.
import cliProgress from 'cli-progress';
import { listStatuses } from '../src/projections/checkpoints.ts';
import { rebuildProjector } from '../src/projections/rebuild.ts';
import { projectors } from '../src/projections/all.ts';
import { CliError, type CommandGroup } from './context.ts';

export const projectionCommands: CommandGroup = {
  status: {
    usage: 'projections status',
    async run(ctx) {
      const statuses = await listStatuses(ctx.services.pool);
      const head = await ctx.services.store.headPosition();
      const out = projectors.map((p) => {
        const s = statuses.find((x) => x.name === p.name);
        return {
          name: p.name,
          status: s?.status ?? 'not started',
          position: s ? `${s.position.commit}/${s.position.prepare}` : null,
          head: `${head.commit}/${head.prepare}`,
          events_applied: s?.eventsApplied ?? 0,
          error: s?.error ?? '',
          updated_at: s?.updatedAt ?? null,
        };
      });
      for (const p of out) ctx.print(`${p.name.padEnd(20)} ${p.status.padEnd(12)} at ${p.position ?? '-'} (head ${p.head})${p.error ? `  error: ${p.error}` : ''}`);
      return out;
    },
  },
  rebuild: {
    usage: 'projections rebuild NAME | projections rebuild --all',
    async run(ctx) {
      // `rebuild contacts --all` would quietly rebuild every projector, and `rebuild typo --all` too.
      if (ctx.options.all === 'true' && ctx.args.length > 0) throw new CliError('name a projector or pass --all, not both');
      const names = ctx.options.all === 'true' ? projectors.map((p) => p.name) : ctx.args.slice(0, 1);
      if (names.length === 0) throw new CliError('name a projector or pass --all');
      const chosen = names.map((name) => {
        const projector = projectors.find((p) => p.name === name);
        if (!projector) throw new CliError(`unknown projector ${name} (known: ${projectors.map((p) => p.name).join(', ')})`);
        return projector;
      });
      const results = [];
      for (const projector of chosen) {
        const bar = process.stdout.isTTY && !ctx.json
          ? new cliProgress.SingleBar({ format: `${projector.name.padEnd(16)} [{bar}] {percentage}% {value}/{total} events` }, cliProgress.Presets.shades_classic)
          : null;
        bar?.start(1, 0);
        const started = Date.now();
        const position = await rebuildProjector(ctx.services.pool, ctx.services.store, projector, (done, total) => {
          bar?.setTotal(Math.max(total, done));
          bar?.update(done);
        });
        bar?.stop();
        const seconds = (Date.now() - started) / 1000;
        ctx.print(`${projector.name} rebuilt in ${seconds.toFixed(1)} s`);
        results.push({ name: projector.name, position: `${position.commit}/${position.prepare}`, seconds });
      }
      return results;
    },
  },
};
