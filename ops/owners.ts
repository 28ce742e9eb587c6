// `ops owners roundrobin --org ID --users u1,u2,u3` (on, in this order) or `--off`.
import { configureRoundRobin } from '../commands/owners/handlers.ts';
import { CliError, required, type CommandGroup } from './context.ts';

export const ownerCommands: CommandGroup = {
  roundrobin: {
    usage: 'owners roundrobin --org ID (--users u1,u2,u3 | --off)',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const off = ctx.options.off === 'true';
      if (off === (ctx.options.users !== undefined)) throw new CliError('give either --users u1,u2,... or --off');
      // Each user once, as the command stores them (decideConfigureRoundRobin): what is printed is what is kept.
      const users = off ? [] : [...new Set(required(ctx, 'users').split(',').map((u) => u.trim()).filter(Boolean))];
      if (!off && users.length === 0) throw new CliError('--users needs at least one user id');
      const position = await configureRoundRobin(ctx.services.store, { organizationId, users }, ctx.services.now());
      await ctx.settle(position);
      ctx.print(off ? 'round robin off' : `round robin on: ${users.join(', ')}`);
      return { organization_id: organizationId, round_robin: !off, users };
    },
  },
};
