// Job aggregate: one background job of an organisation, numbered per organisation without gaps.
// Stream job-<orgId>-<number>; the numbers come from the counter stream job-counter-<orgId>, whose
// revision is the last number handed out (appended with the exact expected revision).
export const jobStream = (organizationId: string, number: number) => `job-${organizationId}-${number}`;
export const jobCounterStream = (organizationId: string) => `job-counter-${organizationId}`;

export type JobPriority = 'user' | 'background';
/** What started a job: the scheduler, the platform's webhook, an operator, an API call, a connection
 *  (page or ad account backfill), or another job (a follow-up such as creative_sync after ad_spend). */
export type JobTrigger = 'schedule' | 'webhook' | 'operator' | 'api' | 'connect' | 'follow_up';
export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface JobQueued {
  organizationId: string;
  number: number;
  kind: string;
  label: string;
  priority: JobPriority;
  trigger: JobTrigger;
  /** What the job works on: 'account:act_1', 'source:<id>', 'page:<id>', 'org'. One active job per kind and scope. */
  scope: string;
  runAfter: string;
  maxAttempts: number;
  params: Record<string, unknown>;
  queuedAt: string;
}

export type JobEvent =
  | { type: 'JobQueued'; data: JobQueued }
  | { type: 'JobStarted'; data: { organizationId: string; number: number; attempt: number; leaseUntil: string; startedAt: string } }
  | { type: 'JobProgressed'; data: { organizationId: string; number: number; done: number; text: string; at: string } }
  | { type: 'JobSucceeded'; data: { organizationId: string; number: number; summary: string; finishedAt: string } }
  | { type: 'JobFailed'; data: { organizationId: string; number: number; error: string; attempts: number; finishedAt: string } }
  | { type: 'JobRetryScheduled'; data: { organizationId: string; number: number; error: string; attempts: number; runAfter: string; at: string } }
  | { type: 'JobCancelled'; data: { organizationId: string; number: number; at: string } };

/** The counter stream's one event type: number N is the counter's revision N-1. */
export type JobCounterEvent = { type: 'JobNumberAssigned'; data: { organizationId: string; number: number; kind: string; scope: string } };

export interface JobState {
  status: JobStatus | 'none';
  organizationId: string | null;
  number: number;
  kind: string;
  scope: string;
  attempts: number;
  maxAttempts: number;
}

export const initialJobState = (): JobState => ({ status: 'none', organizationId: null, number: 0, kind: '', scope: '', attempts: 0, maxAttempts: 1 });

export function evolveJob(state: JobState, event: JobEvent): JobState {
  switch (event.type) {
    case 'JobQueued': {
      const { organizationId, number, kind, scope, maxAttempts } = event.data;
      return { status: 'queued', organizationId, number, kind, scope, attempts: 0, maxAttempts };
    }
    case 'JobStarted':
      return { ...state, status: 'running', attempts: event.data.attempt };
    case 'JobProgressed':
      return state;
    case 'JobSucceeded':
      return { ...state, status: 'done' };
    case 'JobFailed':
      return { ...state, status: 'failed', attempts: event.data.attempts };
    case 'JobRetryScheduled':
      return { ...state, status: 'queued', attempts: event.data.attempts };
    case 'JobCancelled':
      return { ...state, status: 'cancelled' };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const jobAggregate = { initialState: initialJobState, evolve: evolveJob };

/** Operator- and API-started work (and the backfill an operator's connection starts) is the user's. */
export function priorityFor(trigger: JobTrigger): JobPriority {
  switch (trigger) {
    case 'operator':
    case 'api':
    case 'connect':
      return 'user';
    case 'schedule':
    case 'webhook':
    case 'follow_up':
      return 'background';
    default: {
      const _never: never = trigger;
      return 'background';
    }
  }
}

export const JOB_TRIGGERS: readonly JobTrigger[] = ['schedule', 'webhook', 'operator', 'api', 'connect', 'follow_up'];
