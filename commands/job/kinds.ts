// The job kinds of the service, their scopes, and the label a person reads in GET /jobs.
export const JOB_KINDS = ['lead_import', 'ad_spend', 'creative_sync', 'sheets_sync'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const isJobKind = (value: string): value is JobKind => (JOB_KINDS as readonly string[]).includes(value);

export const scopeOf = {
  account: (account: string) => `account:${account}`,
  page: (pageId: string) => `page:${pageId}`,
  source: (sourceId: string) => `source:${sourceId}`,
  org: () => 'org',
};

/** The id after the scope's prefix ('account:act_1' -> 'act_1'); null when the scope is of another sort. */
export function scopeId(scope: string, sort: 'account' | 'page' | 'source'): string | null {
  return scope.startsWith(`${sort}:`) ? scope.slice(sort.length + 1) : null;
}

/** The scope sort each kind works on. */
export function scopeSortOf(kind: JobKind): 'account' | 'page' | 'source' {
  switch (kind) {
    case 'lead_import':
      return 'page';
    case 'ad_spend':
    case 'creative_sync':
      return 'account';
    case 'sheets_sync':
      return 'source';
    default: {
      const _never: never = kind;
      return 'account';
    }
  }
}

export function labelFor(kind: string, scope: string, params: Record<string, unknown>): string {
  const range = typeof params.since === 'string' ? ` ${params.since}..${typeof params.until === 'string' ? params.until : 'today'}` : '';
  const target = scope.includes(':') ? scope.slice(scope.indexOf(':') + 1) : scope;
  if (!isJobKind(kind)) return `${kind} (${scope})`;
  switch (kind) {
    case 'lead_import':
      return `Lead import from page ${target}${params.backfill === true ? ' (backfill)' : ''}`;
    case 'ad_spend':
      return `Spend sync of ${target}${range || (params.backfill === true ? ' (backfill)' : ' (recent days)')}`;
    case 'creative_sync':
      return `Creative sync of ${target}`;
    case 'sheets_sync':
      return `Sheet sync of source ${target}`;
    default: {
      const _never: never = kind;
      return kind;
    }
  }
}
