// Connecting an ad account: the platform's answer about the account (name, currency, time zone) and the
// sealed token arrive with the command. Connecting again replaces the token and the account's details.
import { ApiError, validationError } from '../shared/errors.ts';
import { ACCOUNT_ID, type AdAccountConnected, type AdAccountEvent, type AdAccountState } from './adaccount.ts';

/** The event's data with the moment of the command in place of connectedAt. */
export type ConnectAdAccount = Omit<AdAccountConnected, 'connectedAt'> & { now: string };

export function decideConnectAdAccount(state: AdAccountState, cmd: ConnectAdAccount): { events: AdAccountEvent[]; result: null } {
  if (!ACCOUNT_ID.test(cmd.account)) throw validationError('account', 'must look like act_<digits>');
  if (!/^[A-Z]{3}$/.test(cmd.currency)) throw validationError('currency', `the platform reported "${cmd.currency}", not an ISO 4217 code`);
  if (state.connected && state.organizationId !== cmd.organizationId) throw new ApiError('conflict', { account: cmd.account });
  const { now, ...connected } = cmd;
  return { events: [{ type: 'AdAccountConnected', data: { ...connected, connectedAt: now } }], result: null };
}
