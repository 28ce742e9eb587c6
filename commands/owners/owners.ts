// Round-robin owners of an organisation: when enabled, each new contact gets the next user in turn.
// Stream `owners-<orgId>`. A contact creation appends its turn here with the exact expected revision, in
// the same appendMany as ContactCreated, so concurrent creations never hand out the same turn twice.
export const ownersStream = (organizationId: string) => `owners-${organizationId}`;

export interface RoundRobinConfigured {
  organizationId: string;
  /** Empty: round robin is off. */
  users: string[];
  configuredAt: string;
}

export interface OwnerTurnTaken {
  organizationId: string;
  contactId: string;
  ownerId: string;
  turn: number;
}

export type OwnersEvent =
  | { type: 'RoundRobinConfigured'; data: RoundRobinConfigured }
  | { type: 'OwnerTurnTaken'; data: OwnerTurnTaken };

export interface OwnersState {
  users: string[];
  /** Turns handed out so far; the next owner is users[turns % users.length]. */
  turns: number;
}

export const initialOwnersState = (): OwnersState => ({ users: [], turns: 0 });

export function evolveOwners(state: OwnersState, event: OwnersEvent): OwnersState {
  switch (event.type) {
    case 'RoundRobinConfigured':
      return { users: event.data.users, turns: 0 };
    case 'OwnerTurnTaken':
      return { ...state, turns: event.data.turn + 1 };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const ownersAggregate = { initialState: initialOwnersState, evolve: evolveOwners };

/** The next owner, or null when round robin is off. */
export function nextOwner(state: OwnersState): { ownerId: string; turn: number } | null {
  if (state.users.length === 0) return null;
  return { ownerId: state.users[state.turns % state.users.length], turn: state.turns };
}
