// Connecting an ad account: the platform's answer about the account (name, currency, time zone) and the
// sealed token arrive with the command. Connecting again replaces the token and the account's details.
import { ApiError, validationError } from '../shared/errors.ts';
import { ACCOUNT_ID, type AdAccountEvent, type AdAccountState } from './adaccount.ts';

export interface ConnectAdAccount {
  organizationId: string;
  account: string;
  name: string;
  currency: string;
  timezone: string;
  tokenCiphertext: string;
  now: string;
}

export function decideConnectAdAccount(state: AdAccountState, cmd: ConnectAdAccount): { events: AdAccountEvent[]; result: null } {
  if (!ACCOUNT_ID.test(cmd.account)) throw validationError('account', 'must look like act_<digits>');
  if (!/^[A-Z]{3}$/.test(cmd.currency)) throw validationError('currency', `the platform reported "${cmd.currency}", not an ISO 4217 code`);
  if (state.connected && state.organizationId !== cmd.organizationId) throw new ApiError('conflict', { account: cmd.account });
  const { organizationId, account, name, currency, timezone, tokenCiphertext, now } = cmd;
  return { events: [{ type: 'AdAccountConnected', data: { organizationId, account, name, currency, timezone, tokenCiphertext, connectedAt: now } }], result: null };
}
