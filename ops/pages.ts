// `ops page connect --org ID --page PAGE_ID --token TOKEN`: leads of the page belong to the organisation.
import { connectPage } from '../commands/page/handlers.ts';
import { pageAggregate, pageStream } from '../commands/page/page.ts';
import { loadAggregate } from '../src/eventstore/handle.ts';
import { platformNumber, required, type CommandGroup } from './context.ts';

export const pageCommands: CommandGroup = {
  connect: {
    usage: 'page connect --org ID --page PAGE_ID --token TOKEN',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const pageId = platformNumber(required(ctx, 'page'), 'page', 'page id');
      const token = required(ctx, 'token');
      // A page belongs to one organisation at a time: connecting it elsewhere moves it, which the operator must see
      // (a wrong --org would otherwise quietly send another organisation's new leads here).
      const before = (await loadAggregate(ctx.services.store, pageStream(pageId), pageAggregate)).state.organizationId;
      const movedFrom = before !== null && before !== organizationId ? before : null;
      const connected = await connectPage(ctx.services.store, { organizationId, pageId, token }, ctx.services.secrets.encryptionKey, ctx.services.now());
      await ctx.settle(connected.position);
      ctx.print(`page ${pageId} connected to organisation ${organizationId}${movedFrom ? ` (moved from organisation ${movedFrom}: its new leads come here now)` : ''}`);
      return { page_id: pageId, organization_id: organizationId, moved_from: movedFrom };
    },
  },
};
