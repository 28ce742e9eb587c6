// `ops creatives tag --org ID GROUP_ID DIMENSION:VALUE...` (an empty value clears the dimension) and
// `ops creatives list --org ID`: the creative groups with their ads and tags, to find a group id.
import { tagCreativeGroup } from '../commands/creativegroup/handlers.ts';
import { parseTag } from '../commands/creativegroup/decide.ts';
import { listCreativeAds, listGroupTags } from '../queries/reports/catalog.ts';
import { selectGroups } from '../queries/reports/creative-groups.ts';
import { CliError, existingOrganization, positional, required, type CommandGroup } from './context.ts';

export const creativeCommands: CommandGroup = {
  tag: {
    usage: 'creatives tag --org ID GROUP_ID DIMENSION:VALUE... (dimensions hook, creator, offer; DIMENSION: clears)',
    async run(ctx) {
      const organizationId = required(ctx, 'org');
      const groupId = positional(ctx, 0, 'group id (video:ID, image:HASH or creative:ID)');
      if (ctx.args.length < 2) throw new CliError('name at least one DIMENSION:VALUE');
      const changes = ctx.args.slice(1).map((text) => parseTag(text));
      const tagged = await tagCreativeGroup(ctx.services.store, { organizationId, groupId, changes }, ctx.services.now());
      if (tagged.position) await ctx.settle(tagged.position);
      ctx.print(`${groupId}: ${tagged.tags.join(' ') || '(no tags)'}${tagged.position ? '' : ' (unchanged)'}`);
      return { group_id: groupId, tags: tagged.tags, changed: tagged.position !== null };
    },
  },
  list: {
    usage: 'creatives list --org ID',
    async run(ctx) {
      const organizationId = await existingOrganization(ctx);
      await ctx.settle();
      const [ads, tags] = await Promise.all([listCreativeAds(ctx.services.pool, organizationId), listGroupTags(ctx.services.pool, organizationId)]);
      const groups = [...selectGroups(ads, tags, {}).values()];
      for (const g of groups) ctx.print(`${g.group_id}  ${g.format}  ${g.ad_ids.length} ads  ${g.tags.join(' ') || '-'}  ${g.title}`);
      return groups.map((g) => ({ group_id: g.group_id, kind: g.kind, format: g.format, title: g.title, ad_ids: g.ad_ids, accounts: g.accounts, tags: g.tags }));
    },
  },
};
