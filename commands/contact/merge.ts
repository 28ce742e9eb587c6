// Merging two cards (operator command): the merged card leaves the lists and answers contact_merged;
// its leads, notes and tags move to the surviving card, both in one append.
import type { Position } from '../../src/eventstore/port.ts';
import type { Services } from '../../src/services.ts';
import { ApiError } from '../shared/errors.ts';
import { contactStream } from './contact.ts';
import { decideMerge } from './decideStage.ts';
import { inCardTurn, loadContact, retrying } from './writes.ts';

/**
 * In both cards' turn (inCardTurn): a merge from the CLI landing while a stage change of the service was under
 * way left that change's conversions queued and answered it 409 contact_merged.
 */
export async function mergeContacts(services: Pick<Services, 'store' | 'streamLocks'>, input: { fromId: string; intoId: string }, now: Date): Promise<{ organizationId: string; position: Position }> {
  const { store } = services;
  return inCardTurn(services, [input.fromId, input.intoId], () => retrying(async () => {
    const from = await loadContact(store, input.fromId);
    const into = await loadContact(store, input.intoId);
    if (!from.state.exists) throw new ApiError('not_found', { contact_id: input.fromId });
    const organizationId = from.state.organizationId;
    const { fromEvents, intoEvents } = decideMerge(from.state, into.state, { fromId: input.fromId, intoId: input.intoId, organizationId, now: now.toISOString() });
    // Streams in one order for every writer, so two merges never wait on each other in a circle.
    const requests = [
      { stream: contactStream(input.fromId), events: fromEvents, expectedRevision: from.revision },
      { stream: contactStream(input.intoId), events: intoEvents, expectedRevision: into.revision },
    ].sort((a, b) => a.stream.localeCompare(b.stream));
    const appended = await store.appendMany(requests, { organizationId, actor: 'operator' });
    return { organizationId, position: appended.position };
  }));
}
