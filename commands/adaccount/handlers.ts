// Connecting an ad account: the platform is asked about the account with the token (so a wrong account or
// token fails here, not in the first sync), the token is sealed, and AdAccountConnected is appended.
import type { Services } from '../../src/services.ts';
import type { EventMetadata, Position } from '../../src/eventstore/port.ts';
import { handleCommand, loadAggregate } from '../../src/eventstore/handle.ts';
import { open, seal } from '../../src/crypto/secretBox.ts';
import { platformConfigFrom } from '../../src/platform/graph.ts';
import { fetchAdAccount } from '../../src/platform/insights.ts';
import { ApiError, validationError } from '../shared/errors.ts';
import { requireOrganization } from '../organization/handlers.ts';
import { ACCOUNT_ID, adAccountAggregate, adAccountStream, type AdAccountState } from './adaccount.ts';
import { decideConnectAdAccount } from './decide.ts';

/**
 * The platform could not answer about the account (down, unreachable, a transient failure of its own): nothing is
 * wrong with the account or the token given, and nothing was stored. It read "validation_error: the platform refused
 * the account: network error: connect ECONNREFUSED ...", sending the operator to check a value that was fine.
 */
export class PlatformUnavailable extends Error {}

export interface ConnectedAccount {
  account: string;
  name: string;
  currency: string;
  timezone: string;
  position: Position;
}

export async function connectAdAccount(
  services: Services,
  input: { organizationId: string; account: string; token: string },
  metadata: EventMetadata,
): Promise<ConnectedAccount> {
  const account = input.account.startsWith('act_') ? input.account : `act_${input.account}`;
  if (!ACCOUNT_ID.test(account)) throw validationError('account', 'must look like act_<digits>');
  if (input.token.trim() === '') throw validationError('token', 'must not be empty');
  await requireOrganization(services.store, input.organizationId);
  const answer = await fetchAdAccount(platformConfigFrom(services.config), account, input.token);
  if (answer.kind === 'transient') throw new PlatformUnavailable(`the platform could not answer about ${account} now (${answer.message}): nothing was connected; try again`);
  if (answer.kind !== 'ok') throw new ApiError('validation_error', { fields: [{ field: 'account', message: answer.message }] }, `the platform refused the account: ${answer.message}`);
  const { name, currency, timezone_name: timezone } = answer.value;
  const handled = await handleCommand(services.store, adAccountStream(input.organizationId, account), adAccountAggregate, (state) =>
    decideConnectAdAccount(state, {
      organizationId: input.organizationId, account, name, currency, timezone: timezone || 'UTC',
      tokenCiphertext: seal(input.token, services.secrets.encryptionKey), now: services.now().toISOString(),
    }), metadata);
  return { account, name, currency, timezone: timezone || 'UTC', position: handled.append!.position };
}

/** The connected account with its token opened; null when the organisation has not connected it. */
export async function loadAdAccount(services: Services, organizationId: string, account: string): Promise<(AdAccountState & { token: string }) | null> {
  const { state } = await loadAggregate(services.store, adAccountStream(organizationId, account), adAccountAggregate);
  if (!state.connected || state.organizationId !== organizationId) return null;
  return { ...state, token: open(state.tokenCiphertext, services.secrets.encryptionKey) };
}
