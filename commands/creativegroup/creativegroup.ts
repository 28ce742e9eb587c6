// Creative group aggregate: the operator's tags on a group of ads sharing a video, an image or a creative.
// Stream `creativegroup-<orgId>-<groupId>`; a group needs no creation: it exists once ads show it.
export const creativeGroupStream = (organizationId: string, groupId: string) => `creativegroup-${organizationId}-${groupId}`;

/** Tag dimensions; a group holds at most one value per dimension. */
export const TAG_DIMENSIONS = ['hook', 'creator', 'offer'] as const;
export type TagDimension = (typeof TAG_DIMENSIONS)[number];

/** A group id names its kind: video:<video_id>, image:<image_hash> or creative:<creative_id>. */
export const GROUP_ID = /^(video|image|creative):[^\s]{1,190}$/;

export interface CreativeTagged {
  organizationId: string;
  groupId: string;
  /** Every tag of the group after the change, as dimension:value in dimension order. */
  tags: string[];
  taggedAt: string;
}

export type CreativeGroupEvent = { type: 'CreativeTagged'; data: CreativeTagged };

export interface CreativeGroupState {
  tags: string[];
}

export const initialCreativeGroupState = (): CreativeGroupState => ({ tags: [] });

export function evolveCreativeGroup(state: CreativeGroupState, event: CreativeGroupEvent): CreativeGroupState {
  switch (event.type) {
    case 'CreativeTagged':
      return { tags: event.data.tags };
    default: {
      const _never: never = event.type;
      return state;
    }
  }
}

export const creativeGroupAggregate = { initialState: initialCreativeGroupState, evolve: evolveCreativeGroup };
