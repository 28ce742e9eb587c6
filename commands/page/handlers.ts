// `ops page connect`: the page's token is sealed before it is stored in any event.
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { seal } from '../../src/crypto/secretBox.ts';
import { requireOrganization } from '../organization/handlers.ts';
import { validationError } from '../shared/errors.ts';
import { decideConnectPage, pageAggregate, pageStream } from './page.ts';

export async function connectPage(
  store: EventStore,
  input: { organizationId: string; pageId: string; token: string },
  encryptionKey: Buffer,
  now: Date,
): Promise<{ pageId: string; position: Position }> {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(input.pageId)) throw validationError('page', 'a platform page id');
  // A token with a space inside is a paste gone wrong (two words, a line break): every fetch of the page's leads
  // would be refused, so it is refused here, as a target's token is.
  const token = input.token.trim();
  if (token === '' || /\s/.test(token)) throw validationError('token', 'the page access token (not empty, no spaces)');
  await requireOrganization(store, input.organizationId);
  const handled = await handleCommand(store, pageStream(input.pageId), pageAggregate, (state) =>
    decideConnectPage(state, {
      organizationId: input.organizationId, pageId: input.pageId, tokenCiphertext: seal(token, encryptionKey), connectedAt: now.toISOString(),
    }), { organizationId: input.organizationId, actor: 'operator' });
  return { pageId: input.pageId, position: handled.append!.position };
}
