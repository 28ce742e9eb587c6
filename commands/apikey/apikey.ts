// API key aggregate: a key belongs to one organisation; only its SHA-256 hash is ever stored.
export const apiKeyStream = (id: string) => `apikey-${id}`;

export type ApiKeyEvent =
  | {
      type: 'ApiKeyCreated';
      data: {
        keyId: string; organizationId: string; name: string; prefix: string; hash: string;
        scopes: string[]; expiresAt: string | null; createdAt: string;
      };
    }
  | { type: 'ApiKeyRevoked'; data: { keyId: string; organizationId: string; revokedAt: string } };

export interface ApiKeyState {
  exists: boolean;
  revoked: boolean;
  organizationId: string | null;
}

export const initialApiKeyState = (): ApiKeyState => ({ exists: false, revoked: false, organizationId: null });

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { exists: true, revoked: false, organizationId: event.data.organizationId };
    case 'ApiKeyRevoked':
      return { ...state, revoked: true };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const apiKeyAggregate = { initialState: initialApiKeyState, evolve: evolveApiKey };
