// From a batch's push results to what is recorded: the attempts per organisation (one event each), the queue's
// settlement (done, or due again after the retry schedule) and the failure counts. Pure: time and ids come in.
import type { PushResult } from '../../webhooks/sender.ts';
import type { NewEvent } from '../../eventstore/port.ts';
import type { PushType, WebhookPushesAttempted } from '../../../commands/webhook/webhook.ts';
import type { QueuedPush, HealthChange, Settlement } from './queue-sql.ts';

export interface Attempted {
  push: QueuedPush;
  result: PushResult;
  /** ISO time the attempt started. */
  at: string;
  /** The attempt record's id. */
  id: string;
}

export interface Outcomes {
  /** The attempts event of each organisation (one stream each). */
  events: Map<string, NewEvent<'WebhookPushesAttempted', WebhookPushesAttempted>>;
  settlement: Settlement;
  health: HealthChange[];
}

/** Delay before attempt n+1 after n failed ones; past the schedule's end its last step repeats. */
export function retryDelay(schedule: readonly number[], failedAttempts: number): number {
  return schedule[Math.min(failedAttempts, schedule.length) - 1] ?? 0;
}

export function outcomesOf(attempted: Attempted[], schedule: readonly number[], now: Date): Outcomes {
  const out: Outcomes = { events: new Map(), settlement: { done: [], retries: [], released: [] }, health: [] };
  const health = new Map<string, HealthChange>();
  for (const { push, result, at, id } of attempted) {
    // A push a stop cut short is no attempt: it is released, to go out again as soon as a worker runs.
    if (result.interrupted) {
      out.settlement.released.push({ id: push.id, organizationId: push.organization_id });
      continue;
    }
    const attempt = push.attempts + 1;
    const event = out.events.get(push.organization_id) ?? { type: 'WebhookPushesAttempted', data: { organizationId: push.organization_id, attempts: [] } };
    event.data.attempts.push({
      id, deliveryId: push.id, webhookId: push.webhook_id, event: push.event_type as PushType, attempt,
      status: result.status, success: result.ok, error: result.error, durationMs: result.durationMs, at,
    });
    out.events.set(push.organization_id, event);
    if (result.ok) out.settlement.done.push({ id: push.id, organizationId: push.organization_id });
    else out.settlement.retries.push({ id: push.id, organizationId: push.organization_id, attempts: attempt, dueAt: new Date(now.getTime() + retryDelay(schedule, attempt)) });
    const h = health.get(push.webhook_id) ?? { organizationId: push.organization_id, webhookId: push.webhook_id, failures: 0, reset: false, resumes: push.resumes };
    if (result.ok) {
      h.reset = true;
      h.failures = 0;
    } else h.failures += 1;
    health.set(push.webhook_id, h);
  }
  out.health = [...health.values()];
  return out;
}
