// `ops page connect --org ID --page PAGE_ID --token TOKEN`: leads of the page belong to the organisation.
import { connectPage } from '../commands/page/handlers.ts';
import { platformNumber, required, type CommandGroup } from './context.ts';

export const pageCommands: CommandGroup = {
  connect: {
    usage: 'page connect --org ID --page PAGE_ID --token TOKEN',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const pageId = platformNumber(required(ctx, 'page'), 'page', 'page id');
      const token = required(ctx, 'token');
      const connected = await connectPage(ctx.services.store, { organizationId, pageId, token }, ctx.services.secrets.encryptionKey, ctx.services.now());
      await ctx.settle(connected.position);
      ctx.print(`page ${pageId} connected to organisation ${organizationId}`);
      return { page_id: pageId, organization_id: organizationId };
    },
  },
};
