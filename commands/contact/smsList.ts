// The organisation's do-not-send list: one stream per phone, `sms-optout-<orgId>-<phoneHash>`.
// POST /contacts/{id}/sms-optout appends here and to every contact with that phone in one append, and a
// contact created later with a listed phone starts blocked.
export const smsListStream = (organizationId: string, phoneHash: string) => `sms-optout-${organizationId}-${phoneHash}`;

export interface PhoneSmsOptoutSet {
  organizationId: string;
  phoneHash: string;
  smsOptout: boolean;
  changedAt: string;
}

export type SmsListEvent = { type: 'PhoneSmsOptoutSet'; data: PhoneSmsOptoutSet };

export interface SmsListState {
  listed: boolean;
}

export const smsListAggregate = {
  initialState: (): SmsListState => ({ listed: false }),
  evolve: (state: SmsListState, event: SmsListEvent): SmsListState => {
    switch (event.type) {
      case 'PhoneSmsOptoutSet':
        return { listed: event.data.smsOptout };
      default: {
        const _never: never = event.type;
        return state;
      }
    }
  },
};
