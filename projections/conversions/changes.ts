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

type Change = Omit<DeliveryChange, 'organizationId'>;

/** What one event changes, per delivery it names (a dispatch's attempt or acceptance names many). */
function changesOf(event: DeliveryEvent): Change[] {
  const none = { lastError: null, acceptedAt: null, nextAttemptAt: null };
  switch (event.type) {
    case 'DeliveriesAttempted': {
      const at = event.data.attemptedAt;
      return event.data.deliveries.map((d) => ({ ...none, id: d.deliveryId, eventId: d.eventId, status: 'sending', attempts: d.attempts, updatedAt: at }));
    }
    case 'DeliveriesAccepted': {
      const at = event.data.acceptedAt;
      // Accepted means no error: the retries' last_error goes ('Last error, empty when none').
      return event.data.deliveries.map((d) => ({ ...none, id: d.deliveryId, eventId: d.eventId, status: 'accepted', attempts: d.attempts, lastError: '', acceptedAt: at, updatedAt: at }));
    }
    case 'DeliveryRetryScheduled': {
      const d = event.data;
      return [{ ...none, id: d.deliveryId, eventId: d.eventId, status: 'retry', attempts: d.attempts, lastError: d.lastError, nextAttemptAt: d.nextAttemptAt, updatedAt: d.scheduledAt }];
    }
    case 'DeliveryFailed': {
      const d = event.data;
      return [{ ...none, id: d.deliveryId, eventId: d.eventId, status: 'failed', attempts: d.attempts, lastError: d.lastError, updatedAt: d.failedAt }];
    }
    case 'DeliveryCancelled': {
      const d = event.data;
      return [{ ...none, id: d.deliveryId, eventId: d.eventId, status: 'cancelled', attempts: d.attempts, lastError: d.reason, updatedAt: d.cancelledAt }];
    }
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
    const { organizationId } = event.data;
    for (const next of changesOf(event)) {
      const prev = byId.get(next.id);
      byId.set(next.id, {
        ...next, organizationId,
        attempts: next.attempts ?? prev?.attempts ?? null,
        lastError: next.lastError ?? prev?.lastError ?? null,
        acceptedAt: next.acceptedAt ?? prev?.acceptedAt ?? null,
      });
    }
  }
  return [...byId.values()];
}
