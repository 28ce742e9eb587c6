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
  | { type: 'SourceResumed'; data: { sourceId: string; organizationId: string; resumedAt: string } }
  /** A form source made without its page (an export lead, `ops source create`) learns it from a later lead that names it. */
  | { type: 'SourcePageLearned'; data: { sourceId: string; organizationId: string; platformPageId: string; learnedAt: string } }
  /** A form source named by its platform form id for want of a name (its first lead named no form) learns the name a later lead gives. */
  | { type: 'SourceNameLearned'; data: { sourceId: string; organizationId: string; name: string; learnedAt: string } };

export interface SourceState {
  exists: boolean;
  organizationId: string | null;
  kind: SourceKind | null;
  name: string;
  /** A form source's platform page: from its creation, or learned from a later lead. */
  platformPageId: string | null;
  paused: boolean;
}

export const initialSourceState = (): SourceState => ({ exists: false, organizationId: null, kind: null, name: '', platformPageId: null, paused: false });

export function evolveSource(state: SourceState, event: SourceEvent): SourceState {
  switch (event.type) {
    case 'SourceCreated': {
      const d = event.data;
      return { exists: true, organizationId: d.organizationId, kind: d.kind, name: d.name, platformPageId: d.platformPageId ?? null, paused: false };
    }
    case 'SourcePaused':
      return { ...state, paused: true };
    case 'SourceResumed':
      return { ...state, paused: false };
    case 'SourcePageLearned':
      return { ...state, platformPageId: event.data.platformPageId };
    case 'SourceNameLearned':
      return { ...state, name: event.data.name };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const sourceAggregate = { initialState: initialSourceState, evolve: evolveSource };
