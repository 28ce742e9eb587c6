// Page connection: leads of a platform page belong to one organisation, fetched with the page's token.
// Stream `page-<pageId>`: a page belongs to one organisation at a time; connecting it again replaces the
// token (and may move it to another organisation, the operator's explicit choice).
export const pageStream = (pageId: string) => `page-${pageId}`;

export interface PageConnected {
  organizationId: string;
  pageId: string;
  /** AES-256-GCM sealed page access token (src/crypto/secretBox.ts). */
  tokenCiphertext: string;
  connectedAt: string;
}

export type PageEvent = { type: 'PageConnected'; data: PageConnected };

export interface PageState {
  organizationId: string | null;
}

export const pageAggregate = {
  initialState: (): PageState => ({ organizationId: null }),
  evolve: (state: PageState, event: PageEvent): PageState => {
    switch (event.type) {
      case 'PageConnected':
        return { organizationId: event.data.organizationId };
      default: {
        const _never: never = event.type;
        return state;
      }
    }
  },
};

export function decideConnectPage(_state: PageState, cmd: PageConnected): { events: PageEvent[]; result: null } {
  return { events: [{ type: 'PageConnected', data: cmd }], result: null };
}
