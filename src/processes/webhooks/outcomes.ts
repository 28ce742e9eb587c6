// From a batch's push results to what is recorded: attempt events per subscription, the queue's settlement
// (done, or due again after the retry schedule) and the failure counts. Pure: time comes in.
import type { PushResult } from '../../webhooks/sender.ts';
import type { NewEvent } from '../../eventstore/port.ts';
import type { PushType, WebhookDeliveryAttempted } from '../../../commands/webhook/webhook.ts';
import type { QueuedPush, HealthChange, Settlement } from './queue-sql.ts';

export interface Attempted {
  push: QueuedPush;
  result: PushResult;
  /** ISO time the attempt started. */
  at: string;
}

export interface Outcomes {
  /** Attempt events by organisation (one stream each). */
  events: Map<string, NewEvent<'WebhookDeliveryAttempted', WebhookDeliveryAttempted>[]>;
  settlement: Settlement;
  health: HealthChange[];
}

/** Delay before attempt n+1 after n failed ones; past the schedule's end its last step repeats. */
export function retryDelay(schedule: readonly number[], failedAttempts: number): number {
  return schedule[Math.min(failedAttempts, schedule.length) - 1] ?? 0;
}

export function outcomesOf(attempted: Attempted[], schedule: readonly number[], now: Date): Outcomes {
  const out: Outcomes = { events: new Map(), settlement: { done: [], retries: [] }, health: [] };
  const health = new Map<string, HealthChange>();
  for (const { push, result, at } of attempted) {
    const attempt = push.attempts + 1;
    const group = out.events.get(push.organization_id) ?? [];
    group.push({
      type: 'WebhookDeliveryAttempted',
      data: {
        deliveryId: push.id, webhookId: push.webhook_id, organizationId: push.organization_id, event: push.event_type as PushType, attempt,
        status: result.status, success: result.ok, error: result.error, durationMs: result.durationMs, at,
      },
    });
    out.events.set(push.organization_id, group);
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
