// Target aggregate: a connection to one platform dataset, with its access token sealed at rest.
export const targetStream = (id: string) => `target-${id}`;

export type TargetMode = 'test' | 'live';

export interface TargetCreatedData {
  targetId: string;
  organizationId: string;
  datasetId: string;
  /** The access token sealed with the service's encryption key (src/crypto/secretBox.ts); never plaintext. */
  tokenCiphertext: string;
  mode: TargetMode;
  /** test_event_code sent in test mode; null in live mode. */
  testCode: string | null;
  createdAt: string;
}

export type TargetEvent = { type: 'TargetCreated'; data: TargetCreatedData };

export interface TargetState {
  exists: boolean;
  organizationId: string | null;
}

export const initialTargetState = (): TargetState => ({ exists: false, organizationId: null });

export function evolveTarget(state: TargetState, event: TargetEvent): TargetState {
  switch (event.type) {
    case 'TargetCreated':
      return { exists: true, organizationId: event.data.organizationId };
    default: {
      const _never: never = event.type;
      return state;
    }
  }
}

export const targetAggregate = { initialState: initialTargetState, evolve: evolveTarget };
