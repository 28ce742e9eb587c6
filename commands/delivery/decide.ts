// What one send attempt means for a delivery: accepted, retried later on the durable schedule, failed, or
// cancelled (never sent because the platform would refuse it for its age). Pure: clock and schedule come in.
import type { DeliveryEvent } from './delivery.ts';

export interface DeliveryFacts {
  deliveryId: string;
  eventId: string;
  organizationId: string;
  targetId: string;
  datasetId: string;
  eventName: string;
  /** Attempts before this one. */
  attempts: number;
}

export type SendOutcome =
  | { kind: 'accepted' }
  | { kind: 'transient'; message: string }
  | { kind: 'permanent'; message: string }
  | { kind: 'too_old' };

export function decideAttempt(d: DeliveryFacts, now: string): DeliveryEvent {
  const { deliveryId, eventId, organizationId, targetId, datasetId } = d;
  return { type: 'DeliveryAttempted', data: { deliveryId, eventId, organizationId, targetId, datasetId, attempt: d.attempts + 1, attemptedAt: now } };
}

/** @param scheduleMs delays after the 1st, 2nd, ... failed attempt; past its end a delivery fails. */
export function decideOutcome(d: DeliveryFacts, outcome: SendOutcome, now: Date, scheduleMs: readonly number[]): DeliveryEvent {
  const { deliveryId, eventId, organizationId } = d;
  const at = now.toISOString();
  switch (outcome.kind) {
    case 'too_old':
      // Not an attempt: the event never left, since one such event makes the platform refuse the whole batch.
      return { type: 'DeliveryCancelled', data: { deliveryId, eventId, organizationId, attempts: d.attempts, reason: 'event_time is more than 7 days old; the platform no longer takes it', cancelledAt: at } };
    case 'accepted':
      return { type: 'DeliveryAccepted', data: { deliveryId, eventId, organizationId, attempts: d.attempts + 1, acceptedAt: at } };
    case 'transient': {
      const attempts = d.attempts + 1;
      const delay = scheduleMs[attempts - 1];
      if (delay !== undefined) {
        const nextAttemptAt = new Date(now.getTime() + delay).toISOString();
        return { type: 'DeliveryRetryScheduled', data: { deliveryId, eventId, organizationId, attempts, lastError: outcome.message, nextAttemptAt, scheduledAt: at } };
      }
      return failed(d, attempts, `${outcome.message} (gave up after ${attempts} attempts)`, at);
    }
    case 'permanent':
      return failed(d, d.attempts + 1, outcome.message, at);
    default: {
      const _never: never = outcome;
      throw new Error('unknown send outcome');
    }
  }
}

function failed(d: DeliveryFacts, attempts: number, lastError: string, at: string): DeliveryEvent {
  const { deliveryId, eventId, organizationId, targetId, datasetId, eventName } = d;
  return { type: 'DeliveryFailed', data: { deliveryId, eventId, organizationId, targetId, datasetId, eventName, attempts, lastError, failedAt: at } };
}
