// Source aggregate: where conversions come from (a spreadsheet, a shop, a platform lead form); pausable.
export const sourceStream = (id: string) => `source-${id}`;

export const SOURCE_KINDS = ['spreadsheet', 'shop', 'form'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface SourceCreatedData {
  sourceId: string;
  organizationId: string;
  kind: SourceKind;
  name: string;
  csvUrl: string | null;
  /** POST /events field name -> spreadsheet header, when the headers differ from the field names. */
  columns: Record<string, string> | null;
  platformFormId: string | null;
  platformPageId: string | null;
  createdAt: string;
}

export type SourceEvent =
  | { type: 'SourceCreated'; data: SourceCreatedData }
  | { type: 'SourcePaused'; data: { sourceId: string; organizationId: string; pausedAt: string } }
  | { type: 'SourceResumed'; data: { sourceId: string; organizationId: string; resumedAt: string } };

export interface SourceState {
  exists: boolean;
  organizationId: string | null;
  kind: SourceKind | null;
  paused: boolean;
}

export const initialSourceState = (): SourceState => ({ exists: false, organizationId: null, kind: null, paused: false });

export function evolveSource(state: SourceState, event: SourceEvent): SourceState {
  switch (event.type) {
    case 'SourceCreated':
      return { exists: true, organizationId: event.data.organizationId, kind: event.data.kind, paused: false };
    case 'SourcePaused':
      return { ...state, paused: true };
    case 'SourceResumed':
      return { ...state, paused: false };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const sourceAggregate = { initialState: initialSourceState, evolve: evolveSource };
