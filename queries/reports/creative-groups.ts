// Creative groups of an organisation as the report filters them: ads sharing a video, an image or a creative.
import type { CreativeAdRow } from './catalog.ts';
import type { CreativeParams } from './params.ts';

export interface CreativeGroup {
  group_id: string;
  kind: 'video' | 'image' | 'creative';
  /** Format, title, body and thumbnail of the group's most recently synced ad. */
  format: string;
  title: string;
  body: string;
  thumbnail_url: string;
  ad_ids: string[];
  accounts: string[];
  tags: string[];
}

export function kindOf(groupId: string): CreativeGroup['kind'] {
  const kind = groupId.slice(0, groupId.indexOf(':'));
  return kind === 'video' || kind === 'image' ? kind : 'creative';
}

/** Groups matching format, ad account and tag; ads outside the account filter are left out of their group. */
export function selectGroups(ads: CreativeAdRow[], tags: Map<string, string[]>, params: Pick<CreativeParams, 'format' | 'adAccount' | 'tag'>): Map<string, CreativeGroup> {
  const groups = new Map<string, CreativeGroup>();
  for (const ad of ads) {
    if (params.adAccount !== undefined && ad.account !== params.adAccount) continue;
    let group = groups.get(ad.group_id);
    if (!group) {
      // Rows come newest first within a group: the first ad seen describes the group.
      group = {
        group_id: ad.group_id, kind: kindOf(ad.group_id), format: ad.format, title: ad.title, body: ad.body,
        thumbnail_url: ad.thumbnail_url, ad_ids: [], accounts: [], tags: tags.get(ad.group_id) ?? [],
      };
      groups.set(ad.group_id, group);
    }
    group.ad_ids.push(ad.ad_id);
    if (!group.accounts.includes(ad.account)) group.accounts.push(ad.account);
  }
  const wanted = params.tag ? `${params.tag.dimension}:${params.tag.value}` : null;
  for (const [id, group] of groups) {
    if ((params.format !== undefined && group.format !== params.format) || (wanted !== null && !group.tags.includes(wanted))) groups.delete(id);
  }
  for (const group of groups.values()) group.ad_ids.sort();
  return groups;
}
