// `ops contacts merge ID --into ID`: leads, notes and tags move to the surviving card.
import { mergeContacts } from '../commands/contact/merge.ts';
import { positional, required, type CommandGroup } from './context.ts';

export const contactCommands: CommandGroup = {
  merge: {
    usage: 'contacts merge ID --into ID',
    async run(ctx) {
      const fromId = positional(ctx, 0, 'contact id');
      const intoId = required(ctx, 'into');
      const merged = await mergeContacts(ctx.services, { fromId, intoId }, ctx.services.now());
      await ctx.settle(merged.position);
      ctx.print(`contact ${fromId} merged into ${intoId}`);
      return { id: fromId, merged_into: intoId };
    },
  },
};
