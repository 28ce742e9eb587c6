import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decideCancel, decideFail, decideQueue, decideRelease, decideStart } from '../../commands/job/decide.ts';
import { evolveJob, initialJobState, type JobEvent, type JobState } from '../../commands/job/job.ts';
import { columnIndex, rowInput } from '../../src/processes/jobs/kinds/sheet-rows.ts';
import { spendRange } from '../../src/processes/jobs/kinds/days.ts';
import { JobError } from '../../src/processes/jobs/handler.ts';

const test = suite('Jobs: transitions, sheet rows and sync windows (pure)');
const NOW = '2025-03-01T10:00:00.000Z';
const given = (events: JobEvent[]): JobState => events.reduce(evolveJob, initialJobState());
const queued = decideQueue(initialJobState(), {
  organizationId: 'o1', number: 7, kind: 'ad_spend', label: 'Spend', trigger: 'schedule', scope: 'account:act_1', params: {},
  maxAttempts: 2, runAfter: NOW, now: NOW,
}).events;
const started = (attempt: number): JobEvent => ({ type: 'JobStarted', data: { organizationId: 'o1', number: 7, attempt, leaseUntil: NOW, startedAt: NOW } });
const codeOf = (fn: () => unknown) => { try { fn(); return 'none'; } catch (e) { return (e as { code: string }).code; } };

test('a scheduled job is background work; an operator\'s is the user\'s', () => {
  assert.is((queued[0].data as { priority: string }).priority, 'background');
  const mine = decideQueue(initialJobState(), { ...(queued[0].data as any), trigger: 'operator', now: NOW }).events[0];
  assert.is((mine.data as { priority: string }).priority, 'user');
});

test('a failure with attempts left is scheduled after the next delay; the last one fails with its error', () => {
  const first = decideFail(given([...queued, started(1)]), { error: 'busy', permanent: false, retryDelaysMs: [30_000, 120_000], now: NOW }).events[0];
  assert.equal(first, { type: 'JobRetryScheduled', data: { organizationId: 'o1', number: 7, error: 'busy', attempts: 1, runAfter: '2025-03-01T10:00:30.000Z', at: NOW } });
  const last = decideFail(given([...queued, started(1), first, started(2)]), { error: 'still busy', permanent: false, retryDelaysMs: [30_000], now: NOW }).events[0];
  assert.equal(last, { type: 'JobFailed', data: { organizationId: 'o1', number: 7, error: 'still busy', attempts: 2, finishedAt: NOW } });
  const permanent = decideFail(given([...queued, started(1)]), { error: 'token', permanent: true, retryDelaysMs: [1], now: NOW }).events[0];
  assert.is(permanent.type, 'JobFailed');
});

test('a released job runs again at once; only queued or running jobs start or cancel', () => {
  const released = decideRelease(given([...queued, started(1)]), { reason: 'lease expired', now: NOW }).events[0];
  assert.equal([released.type, (released.data as { runAfter: string }).runAfter], ['JobRetryScheduled', NOW]);
  const last = given([...queued, started(1), released, started(2)]);
  assert.is(decideRelease(last, { reason: 'lease expired', now: NOW }).events[0].type, 'JobFailed', 'a dead worker\'s last attempt fails the job');
  assert.is(decideRelease(last, { reason: 'the worker stopped', now: NOW, stopping: true }).events[0].type, 'JobRetryScheduled', 'a stop gives it back');
  assert.is(decideStart(given([...queued, started(1), released]), { leaseUntil: NOW, now: NOW }).events[0].type, 'JobStarted');
  assert.is(codeOf(() => decideStart(given([...queued, started(1)]), { leaseUntil: NOW, now: NOW })), 'conflict');
  const done: JobEvent = { type: 'JobSucceeded', data: { organizationId: 'o1', number: 7, summary: '', finishedAt: NOW } };
  assert.is(codeOf(() => decideCancel(given([...queued, started(1), done]), { number: 7, now: NOW })), 'conflict');
  assert.is(codeOf(() => decideCancel(initialJobState(), { number: 7, now: NOW })), 'not_found');
});

test('a sheet row is read by its mapped headers, typed, and checked like a POST /events body', () => {
  const index = columnIndex(['Order', 'STAGE', 'Mail', 'Value', 'Currency', 'Consent'], { external_id: 'order', status: 'stage', email: 'Mail' });
  const ok = rowInput(['A-1', 'paid', ' x@y.z ', '1 234,50', 'PLN', 'tak'], index, 'o1', 's1');
  assert.ok(ok.ok);
  if (ok.ok) assert.equal([ok.input.externalId, ok.input.trigger, ok.input.value, ok.input.email], ['A-1', { kind: 'status', status: 'paid' }, 1234.5, 'x@y.z']);
  assert.equal(rowInput(['A-2', 'paid', 'x@y.z', 'ten', 'PLN', 'yes'], index, 'o1', 's1'), { ok: false, error: 'value: Invalid input: expected number, received string' });
  assert.equal(rowInput(['A-3', '', 'x@y.z', '', '', 'yes'], index, 'o1', 's1'), { ok: false, error: 'status: required: the cell is empty or the sheet has no such column' });
});

test('a sheet value with both separators reads the last one as the decimal point, the other as thousands', () => {
  const index = columnIndex(['external_id', 'status', 'email', 'value', 'currency', 'consent'], null);
  const valueOf = (cell: string) => {
    const row = rowInput(['A-1', 'paid', 'x@y.z', cell, 'PLN', 'yes'], index, 'o1', 's1');
    return row.ok ? row.input.value : row.error;
  };
  assert.equal(['1.234,50', '1,234.50', '12.345.678,9', '12,345,678.9', '1 234,50', '1234.5', '1234,5'].map(valueOf),
    [1234.5, 1234.5, 12345678.9, 12345678.9, 1234.5, 1234.5, 1234.5]);
});

test('a spend sync covers the rolling window, a backfill, or the days asked for', () => {
  const o = { windowDays: 7, backfillDays: 90 };
  assert.equal(spendRange({}, '2025-03-10', o), { since: '2025-03-04', until: '2025-03-10' });
  assert.equal(spendRange({ backfill: true }, '2025-03-10', o), { since: '2024-12-11', until: '2025-03-10' });
  assert.equal(spendRange({ since: '2025-01-01', until: '2025-01-31' }, '2025-03-10', o), { since: '2025-01-01', until: '2025-01-31' });
  assert.throws(() => spendRange({ since: '2025-02-01', until: '2025-01-01' }, '2025-03-10', o), (e: JobError) => e instanceof JobError && e.permanent);
});

test.run();
