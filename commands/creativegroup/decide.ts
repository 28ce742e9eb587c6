// Tagging a creative group: each DIMENSION:VALUE sets that dimension (an empty value clears it).
import { validationError } from '../shared/errors.ts';
import { GROUP_ID, TAG_DIMENSIONS, type CreativeGroupEvent, type CreativeGroupState, type TagDimension } from './creativegroup.ts';

export interface TagChange {
  dimension: TagDimension;
  /** '' removes the dimension's tag. */
  value: string;
}

export interface TagCreativeGroup {
  organizationId: string;
  groupId: string;
  changes: TagChange[];
  now: string;
}

const MAX_VALUE = 50;

/** "hook:question" -> { dimension: 'hook', value: 'question' }; another dimension is a validation_error. */
export function parseTag(text: string, field = 'tag'): TagChange {
  const at = text.indexOf(':');
  const dimension = (at < 0 ? text : text.slice(0, at)).trim().toLowerCase();
  const value = at < 0 ? '' : text.slice(at + 1).trim();
  if (at < 0 || !(TAG_DIMENSIONS as readonly string[]).includes(dimension)) {
    throw validationError(field, `expected DIMENSION:VALUE with dimension ${TAG_DIMENSIONS.join(', ')}`);
  }
  if (value.length > MAX_VALUE) throw validationError(field, `a tag value has at most ${MAX_VALUE} characters`);
  return { dimension: dimension as TagDimension, value };
}

export function decideTagCreativeGroup(state: CreativeGroupState, command: TagCreativeGroup): { events: CreativeGroupEvent[]; result: { tags: string[] } } {
  if (!GROUP_ID.test(command.groupId)) throw validationError('group_id', 'expected video:<id>, image:<hash> or creative:<id>');
  if (command.changes.length === 0) throw validationError('tags', 'name at least one DIMENSION:VALUE');
  // One value per dimension: with hook:a hook:b the one typed last would win without a word.
  const named = new Map<string, string>();
  for (const { dimension, value } of command.changes) {
    const first = named.get(dimension);
    if (first !== undefined) throw validationError('tags', `${dimension} is given twice (${first} and ${dimension}:${value}): give each dimension once`);
    named.set(dimension, `${dimension}:${value}`);
  }
  const byDimension = new Map<string, string>();
  for (const tag of state.tags) byDimension.set(tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1));
  for (const change of command.changes) {
    if (change.value) byDimension.set(change.dimension, change.value);
    else byDimension.delete(change.dimension);
  }
  const tags = TAG_DIMENSIONS.filter((d) => byDimension.has(d)).map((d) => `${d}:${byDimension.get(d)}`);
  if (tags.join('\n') === state.tags.join('\n')) return { events: [], result: { tags } };
  return {
    events: [{ type: 'CreativeTagged', data: { organizationId: command.organizationId, groupId: command.groupId, tags, taggedAt: command.now } }],
    result: { tags },
  };
}
