// Job transitions: queued -> running -> done / failed; failed with attempts left -> queued (later
// run_after); queued or running -> cancelled. Pure: the clock and the retry delays arrive in the command.
import { ApiError } from '../shared/errors.ts';
import { priorityFor, type JobEvent, type JobQueued, type JobState, type JobTrigger } from './job.ts';

type Decision = { events: JobEvent[]; result: null };
const one = (event: JobEvent): Decision => ({ events: [event], result: null });

export interface QueueJob {
  organizationId: string;
  number: number;
  kind: string;
  label: string;
  trigger: JobTrigger;
  scope: string;
  params: Record<string, unknown>;
  maxAttempts: number;
  runAfter: string;
  now: string;
}

export function decideQueue(state: JobState, cmd: QueueJob): Decision {
  if (state.status !== 'none') throw new ApiError('conflict', { number: cmd.number }, 'job number already used');
  if (!Number.isInteger(cmd.maxAttempts) || cmd.maxAttempts < 1) throw new ApiError('validation_error', undefined, 'maxAttempts must be at least 1');
  const data: JobQueued = {
    organizationId: cmd.organizationId, number: cmd.number, kind: cmd.kind, label: cmd.label,
    priority: priorityFor(cmd.trigger), trigger: cmd.trigger, scope: cmd.scope, runAfter: cmd.runAfter,
    maxAttempts: cmd.maxAttempts, params: cmd.params, queuedAt: cmd.now,
  };
  return one({ type: 'JobQueued', data });
}

function ids(state: JobState): { organizationId: string; number: number } {
  return { organizationId: state.organizationId ?? '', number: state.number };
}

function requireRunning(state: JobState, action: string): void {
  if (state.status !== 'running') throw new ApiError('conflict', { number: state.number, status: state.status }, `cannot ${action} a ${state.status} job`);
}

export function decideStart(state: JobState, cmd: { leaseUntil: string; now: string }): Decision {
  if (state.status !== 'queued') throw new ApiError('conflict', { number: state.number, status: state.status }, `cannot start a ${state.status} job`);
  return one({ type: 'JobStarted', data: { ...ids(state), attempt: state.attempts + 1, leaseUntil: cmd.leaseUntil, startedAt: cmd.now } });
}

export function decideProgress(state: JobState, cmd: { done: number; text: string; now: string }): Decision {
  requireRunning(state, 'report progress of');
  return one({ type: 'JobProgressed', data: { ...ids(state), done: cmd.done, text: cmd.text, at: cmd.now } });
}

export function decideSucceed(state: JobState, cmd: { summary: string; now: string }): Decision {
  requireRunning(state, 'finish');
  return one({ type: 'JobSucceeded', data: { ...ids(state), summary: cmd.summary, finishedAt: cmd.now } });
}

/**
 * A failed attempt goes back to the queue after the next delay of the schedule (the last delay repeats)
 * while attempts are left; a permanent failure (the same request will be refused again) or the last
 * attempt ends the job with its error kept.
 */
export function decideFail(state: JobState, cmd: { error: string; permanent: boolean; retryDelaysMs: readonly number[]; now: string }): Decision {
  requireRunning(state, 'fail');
  const attempts = state.attempts;
  if (cmd.permanent || attempts >= state.maxAttempts) {
    return one({ type: 'JobFailed', data: { ...ids(state), error: cmd.error, attempts, finishedAt: cmd.now } });
  }
  const delays = cmd.retryDelaysMs.length ? cmd.retryDelaysMs : [0];
  const delay = delays[Math.min(attempts - 1, delays.length - 1)];
  const runAfter = new Date(Date.parse(cmd.now) + delay).toISOString();
  return one({ type: 'JobRetryScheduled', data: { ...ids(state), error: cmd.error, attempts, runAfter, at: cmd.now } });
}

/**
 * A worker that died (lease expired) or stopped: the attempt counts, and the job runs again at once. A dead worker's
 * last attempt fails the job; a stopping worker (a restart, a deploy) always gives it back, the stop being no fault
 * of the job (its last attempt used to fail it for good).
 */
export function decideRelease(state: JobState, cmd: { reason: string; now: string; stopping?: boolean }): Decision {
  requireRunning(state, 'release');
  if (!cmd.stopping && state.attempts >= state.maxAttempts) {
    return one({ type: 'JobFailed', data: { ...ids(state), error: cmd.reason, attempts: state.attempts, finishedAt: cmd.now } });
  }
  return one({ type: 'JobRetryScheduled', data: { ...ids(state), error: cmd.reason, attempts: state.attempts, runAfter: cmd.now, at: cmd.now } });
}

export function decideCancel(state: JobState, cmd: { number: number; now: string }): Decision {
  if (state.status === 'none') throw new ApiError('not_found', { number: cmd.number }, 'no such job');
  if (state.status !== 'queued' && state.status !== 'running') {
    throw new ApiError('conflict', { number: cmd.number, status: state.status }, `the job is already ${state.status}`);
  }
  return one({ type: 'JobCancelled', data: { ...ids(state), at: cmd.now } });
}
