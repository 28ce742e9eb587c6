// Ad account aggregate: an organisation's connected ad account (token sealed at rest), and the streams its
// spend syncs and creative syncs append to.
export const adAccountStream = (organizationId: string, account: string) => `adaccount-${organizationId}-${account}`;
export const adSpendStream = (organizationId: string, account: string) => `adspend-${organizationId}-${account}`;
export const adCreativeStream = (organizationId: string, account: string) => `adcreative-${organizationId}-${account}`;

export const ACCOUNT_ID = /^act_\d{1,30}$/;

export interface AdAccountConnected {
  organizationId: string;
  /** act_<number> */
  account: string;
  name: string;
  currency: string;
  /** IANA time zone of the account: the days of its insights are days there. */
  timezone: string;
  /** AES-256-GCM sealed access token (src/crypto/secretBox.ts). */
  tokenCiphertext: string;
  connectedAt: string;
}

export type AdAccountEvent = { type: 'AdAccountConnected'; data: AdAccountConnected };

export interface AdAccountState {
  connected: boolean;
  organizationId: string | null;
  account: string;
  name: string;
  currency: string;
  timezone: string;
  tokenCiphertext: string;
}

export const initialAdAccountState = (): AdAccountState => ({
  connected: false, organizationId: null, account: '', name: '', currency: '', timezone: 'UTC', tokenCiphertext: '',
});

export function evolveAdAccount(state: AdAccountState, event: AdAccountEvent): AdAccountState {
  switch (event.type) {
    case 'AdAccountConnected': {
      const { organizationId, account, name, currency, timezone, tokenCiphertext } = event.data;
      return { connected: true, organizationId, account, name, currency, timezone, tokenCiphertext };
    }
    default: {
      const _never: never = event.type;
      return state;
    }
  }
}

export const adAccountAggregate = { initialState: initialAdAccountState, evolve: evolveAdAccount };
