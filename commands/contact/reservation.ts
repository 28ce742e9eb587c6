// Reservation streams: one phone or e-mail per organisation belongs to at most one contact.
//
// `contact-phone-<orgId>-<phoneHash>` and `contact-email-<orgId>-<emailHash>` are appended with
// 'no_stream' (or the exact revision after a release) in the same appendMany as the change that takes
// the value, so two concurrent writers of the same value cannot both succeed, on either event store.
export type ReservationKind = 'phone' | 'email';

export const reservationStream = (kind: ReservationKind, organizationId: string, hash: string) =>
  `contact-${kind}-${organizationId}-${hash}`;

export interface ContactKeyReserved {
  organizationId: string;
  kind: ReservationKind;
  hash: string;
  contactId: string;
  reservedAt: string;
}

/** The holder gave the value up (PATCH changed or removed it): it can be reserved again. */
export interface ContactKeyReleased {
  organizationId: string;
  kind: ReservationKind;
  hash: string;
  contactId: string;
  releasedAt: string;
}

export type ReservationEvent =
  | { type: 'ContactKeyReserved'; data: ContactKeyReserved }
  | { type: 'ContactKeyReleased'; data: ContactKeyReleased };

export interface ReservationState {
  holder: string | null;
}

export const initialReservationState = (): ReservationState => ({ holder: null });

export function evolveReservation(state: ReservationState, event: ReservationEvent): ReservationState {
  switch (event.type) {
    case 'ContactKeyReserved':
      return { holder: event.data.contactId };
    case 'ContactKeyReleased':
      return state.holder === event.data.contactId ? { holder: null } : state;
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const reservationAggregate = { initialState: initialReservationState, evolve: evolveReservation };
