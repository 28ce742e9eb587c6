// Delivery outcomes: each attempt to send a delivery to its dataset, and how it ended. The work table of the
// delivery process (claims with leases) keeps one delivery in one worker's hands; these events are the record.
// They are appended per dispatch (one platform request and its split re-sends): stream dispatch-<claim token>.
export const dispatchStream = (claimToken: string) => `dispatch-${claimToken}`;

interface Ids {
  deliveryId: string;
  eventId: string;
  organizationId: string;
}

export type DeliveryEvent =
  | { type: 'DeliveryAttempted'; data: Ids & { targetId: string; datasetId: string; attempt: number; attemptedAt: string } }
  | { type: 'DeliveryAccepted'; data: Ids & { attempts: number; acceptedAt: string } }
  | { type: 'DeliveryRetryScheduled'; data: Ids & { attempts: number; lastError: string; nextAttemptAt: string; scheduledAt: string } }
  | {
      type: 'DeliveryFailed';
      /** The domain event pushed to webhooks as delivery.failed. */
      data: Ids & { targetId: string; datasetId: string; eventName: string; attempts: number; lastError: string; failedAt: string };
    }
  | { type: 'DeliveryCancelled'; data: Ids & { attempts: number; reason: string; cancelledAt: string } };

export const DELIVERY_EVENT_TYPES = ['DeliveryAttempted', 'DeliveryAccepted', 'DeliveryRetryScheduled', 'DeliveryFailed', 'DeliveryCancelled'] as const;
