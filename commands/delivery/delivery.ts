// Delivery outcomes: each attempt to send a delivery to its dataset, and how it ended. The work table of the
// delivery process (claims with leases) keeps one delivery in one worker's hands; these events are the record.
// They are appended per dispatch (one platform request and its split re-sends): stream dispatch-<claim token>.
// The common path of a dispatch is two events whatever its size: the attempt of every delivery in it, then
// the acceptance of those the platform took. Retries, failures and cancellations stay one event a delivery.
export const dispatchStream = (claimToken: string) => `dispatch-${claimToken}`;

interface Ids {
  deliveryId: string;
  eventId: string;
  organizationId: string;
}

/** One delivery of a dispatch: its ids and the attempt number it reached. */
export interface DispatchedDelivery {
  deliveryId: string;
  eventId: string;
  attempts: number;
}

export type DeliveryEvent =
  | { type: 'DeliveriesAttempted'; data: { organizationId: string; targetId: string; datasetId: string; attemptedAt: string; deliveries: DispatchedDelivery[] } }
  | { type: 'DeliveriesAccepted'; data: { organizationId: string; acceptedAt: string; deliveries: DispatchedDelivery[] } }
  | { type: 'DeliveryRetryScheduled'; data: Ids & { attempts: number; lastError: string; nextAttemptAt: string; scheduledAt: string } }
  | {
      type: 'DeliveryFailed';
      /** The domain event pushed to webhooks as delivery.failed. */
      data: Ids & { targetId: string; datasetId: string; eventName: string; attempts: number; lastError: string; failedAt: string };
    }
  | { type: 'DeliveryCancelled'; data: Ids & { attempts: number; reason: string; cancelledAt: string } };

/** One event per delivery, as stores written before dispatches were recorded whole hold them; still read. */
export type LegacyDeliveryEvent =
  | { type: 'DeliveryAttempted'; data: Ids & { targetId: string; datasetId: string; attempt: number; attemptedAt: string } }
  | { type: 'DeliveryAccepted'; data: Ids & { attempts: number; acceptedAt: string } };

export const DELIVERY_EVENT_TYPES = [
  'DeliveriesAttempted', 'DeliveriesAccepted', 'DeliveryRetryScheduled', 'DeliveryFailed', 'DeliveryCancelled', 'DeliveryAttempted', 'DeliveryAccepted',
] as const;

/** A legacy event as the dispatch-wide event it stands for. */
export function fromLegacy(event: LegacyDeliveryEvent): DeliveryEvent {
  const { deliveryId, eventId, organizationId } = event.data;
  if (event.type === 'DeliveryAttempted') {
    const { targetId, datasetId, attempt, attemptedAt } = event.data;
    return { type: 'DeliveriesAttempted', data: { organizationId, targetId, datasetId, attemptedAt, deliveries: [{ deliveryId, eventId, attempts: attempt }] } };
  }
  return { type: 'DeliveriesAccepted', data: { organizationId, acceptedAt: event.data.acceptedAt, deliveries: [{ deliveryId, eventId, attempts: event.data.attempts }] } };
}

/** Any stored delivery event in today's shape. */
export function currentDeliveryEvent(event: { type: string; data: unknown }): DeliveryEvent {
  const e = event as DeliveryEvent | LegacyDeliveryEvent;
  return e.type === 'DeliveryAttempted' || e.type === 'DeliveryAccepted' ? fromLegacy(e) : e;
}
