// `ops adaccount connect`: an ad account's spend belongs to the organisation; its token is sealed at rest. The backfill
// is queued by the scheduler of a worker process (src/processes/jobs/scheduler.ts), not by this command.
import { connectAdAccount, PlatformUnavailable } from '../commands/adaccount/handlers.ts';
import { CliError, platformAccount, required, type CommandGroup } from './context.ts';

export const adAccountCommands: CommandGroup = {
  connect: {
    usage: 'adaccount connect --org ID --account act_ID --token TOKEN',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const connected = await connectAdAccount(ctx.services, {
        organizationId, account: platformAccount(required(ctx, 'account')), token: required(ctx, 'token'),
      }, { organizationId, actor: 'operator' }).catch((error: unknown) => {
        // The command asks the platform from its own process: the address it asked is the one to check.
        if (error instanceof PlatformUnavailable) throw new CliError(`${error.message} (asked at PLATFORM_API_URL ${ctx.services.config.platformApiUrl})`);
        throw error;
      });
      await ctx.settle(connected.position);
      ctx.print(`ad account ${connected.account} (${connected.name}, ${connected.currency}, ${connected.timezone}) connected; the server's scheduler queues its backfill (at once while it runs, else when it starts)`);
      return { account: connected.account, name: connected.name, currency: connected.currency, timezone: connected.timezone };
    },
  },
};
