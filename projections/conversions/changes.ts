// A batch of delivery events folded into one change per delivery, so a batch is a few set-based statements.
import type { DeliveryEvent } from '../../commands/delivery/delivery.ts';

export interface DeliveryChange {
  id: string;
  organizationId: string;
  eventId: string;
  status: string;
  /** null keeps the stored value. */
  attempts: number | null;
  lastError: string | null;
  acceptedAt: string | null;
  /** Always written: only a retry has one. */
  nextAttemptAt: string | null;
  updatedAt: string;
}

function changeOf(event: DeliveryEvent): Omit<DeliveryChange, 'id' | 'organizationId' | 'eventId'> {
  const none = { lastError: null, acceptedAt: null, nextAttemptAt: null };
  switch (event.type) {
    case 'DeliveryAttempted':
      return { ...none, status: 'sending', attempts: event.data.attempt, updatedAt: event.data.attemptedAt };
    case 'DeliveryAccepted':
      return { ...none, status: 'accepted', attempts: event.data.attempts, acceptedAt: event.data.acceptedAt, updatedAt: event.data.acceptedAt };
    case 'DeliveryRetryScheduled':
      return { ...none, status: 'retry', attempts: event.data.attempts, lastError: event.data.lastError, nextAttemptAt: event.data.nextAttemptAt, updatedAt: event.data.scheduledAt };
    case 'DeliveryFailed':
      return { ...none, status: 'failed', attempts: event.data.attempts, lastError: event.data.lastError, updatedAt: event.data.failedAt };
    case 'DeliveryCancelled':
      return { ...none, status: 'cancelled', attempts: event.data.attempts, lastError: event.data.reason, updatedAt: event.data.cancelledAt };
    default: {
      const _never: never = event;
      throw new Error('unknown delivery event');
    }
  }
}

/** Later events win field by field; a field an event does not set keeps the earlier event's value. */
export function foldChanges(events: DeliveryEvent[]): DeliveryChange[] {
  const byId = new Map<string, DeliveryChange>();
  for (const event of events) {
    const { deliveryId: id, organizationId, eventId } = event.data;
    const next = changeOf(event);
    const prev = byId.get(id);
    byId.set(id, {
      id, organizationId, eventId, ...next,
      attempts: next.attempts ?? prev?.attempts ?? null,
      lastError: next.lastError ?? prev?.lastError ?? null,
      acceptedAt: next.acceptedAt ?? prev?.acceptedAt ?? null,
    });
  }
  return [...byId.values()];
}
