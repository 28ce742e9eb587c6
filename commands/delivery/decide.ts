// What one dispatch means for its deliveries: the attempt, then per delivery accepted, retried later on the
// durable schedule, failed, or cancelled (never sent because the platform would refuse it for its age).
// Pure: clock and schedule come in.
import type { DeliveryEvent, DispatchedDelivery } from './delivery.ts';

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

/** The attempt of every delivery of one dispatch (one target), recorded before anything is sent. */
export function decideAttempt(ds: DeliveryFacts[], now: string): DeliveryEvent {
  const { organizationId, targetId, datasetId } = ds[0];
  const deliveries = ds.map((d) => ({ deliveryId: d.deliveryId, eventId: d.eventId, attempts: d.attempts + 1 }));
  return { type: 'DeliveriesAttempted', data: { organizationId, targetId, datasetId, attemptedAt: now, deliveries } };
}

/**
 * The outcomes of one dispatch: one DeliveriesAccepted for all it got through, one event for each other.
 * @param scheduleMs delays after the 1st, 2nd, ... failed attempt; past its end a delivery fails.
 */
export function decideOutcomes(sent: { facts: DeliveryFacts; outcome: SendOutcome }[], now: Date, scheduleMs: readonly number[]): DeliveryEvent[] {
  const accepted: DispatchedDelivery[] = [];
  const others: DeliveryEvent[] = [];
  for (const { facts, outcome } of sent) {
    if (outcome.kind === 'accepted') accepted.push({ deliveryId: facts.deliveryId, eventId: facts.eventId, attempts: facts.attempts + 1 });
    else others.push(decideSetback(facts, outcome, now, scheduleMs));
  }
  if (accepted.length === 0) return others;
  return [{ type: 'DeliveriesAccepted', data: { organizationId: sent[0].facts.organizationId, acceptedAt: now.toISOString(), deliveries: accepted } }, ...others];
}

function decideSetback(d: DeliveryFacts, outcome: Exclude<SendOutcome, { kind: 'accepted' }>, now: Date, scheduleMs: readonly number[]): DeliveryEvent {
  const { deliveryId, eventId, organizationId } = d;
  const at = now.toISOString();
  switch (outcome.kind) {
    case 'too_old':
      // Not an attempt: the event never left, since one such event makes the platform refuse the whole batch.
      return { type: 'DeliveryCancelled', data: { deliveryId, eventId, organizationId, attempts: d.attempts, reason: 'event_time is too old for the platform (7 days, less a minute kept as margin for the send)', cancelledAt: at } };
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
