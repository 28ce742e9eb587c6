// Pure rules on contact fields: tags, the reachable rule, and the guard every contact command starts with.
import { ApiError, validationError } from '../shared/errors.ts';
import { charCount } from '../shared/text.ts';
import type { ContactState } from './contact.ts';

export const TAG_MAX_LENGTH = 50;
export const TAGS_PER_CONTACT = 50;

/** Trimmed, 1-50 characters each, duplicates dropped (first spelling kept). */
export function cleanTags(tags: readonly string[], field = 'tags'): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag.length < 1 || charCount(tag) > TAG_MAX_LENGTH) throw validationError(field, `a tag is 1-${TAG_MAX_LENGTH} characters after trimming`);
    if (!out.includes(tag)) out.push(tag);
  }
  return out;
}

export function checkTagCount(tags: readonly string[], field = 'tags'): void {
  if (tags.length > TAGS_PER_CONTACT) throw validationError(field, `at most ${TAGS_PER_CONTACT} tags on a contact`);
}

/** A person the organisation can reach: a phone or an e-mail must be there. */
export function requireReachable(fields: { phone: string; email: string }): void {
  if (fields.phone === '' && fields.email === '') {
    throw new ApiError('validation_error', { fields: [{ field: 'phone', message: 'a phone or an e-mail is required' }, { field: 'email', message: 'a phone or an e-mail is required' }] }, 'a phone or an e-mail is required');
  }
}

/** Every command on a card: it must exist in the organisation and must not be merged. */
export function liveContact(state: ContactState, contactId: string, organizationId: string): ContactState {
  if (!state.exists || state.organizationId !== organizationId) throw new ApiError('not_found', { contact_id: contactId });
  if (state.mergedInto !== null) throw new ApiError('contact_merged', { merged_into: state.mergedInto });
  return state;
}
