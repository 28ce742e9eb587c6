// Conversion aggregate: one accepted conversion (stream per organisation and service event id) and the
// deliveries it queued, one per dataset. Reservation streams make (dataset, event name, platform event id)
// unique across conversions: each is appended with 'no_stream' in the same atomic append.
export const conversionStream = (eventId: string) => `conversion-${eventId}`;
export const reservationStream = (key: string) => `deliverykey-${key}`;

export type ActionSource = 'website' | 'system_generated';
export type Trigger = { kind: 'status'; status: string } | { kind: 'stage'; stage: string };

/** Hashed (em, ph, externalId) or as the platform takes them unhashed (cookies, ip, agent, lead id). */
export interface ConversionUserData {
  em: string | null;
  ph: string | null;
  externalId: string | null;
  fbp: string | null;
  fbc: string | null;
  clientIpAddress: string | null;
  clientUserAgent: string | null;
  leadId: string | null;
}

export interface PlannedDelivery {
  deliveryId: string;
  targetId: string;
  datasetId: string;
  eventName: string;
  mode: 'test' | 'live';
  /** test_event_code of a test-mode target when the conversion was accepted; null in live mode. */
  testEventCode: string | null;
}

export interface ConversionAcceptedData {
  eventId: string;
  organizationId: string;
  sourceId: string;
  externalId: string;
  trigger: Trigger;
  /** The caller's status, or the lead stage for stage-triggered conversions. */
  status: string;
  platformEventId: string;
  eventTime: string;
  value: number | null;
  currency: string | null;
  userData: ConversionUserData;
  contentIds: string[] | null;
  eventSourceUrl: string | null;
  trackingId: string | null;
  actionSource: ActionSource;
  /** SHA-256 of the content as given; a repeat with another fingerprint is an event_conflict. */
  fingerprint: string;
  deliveries: PlannedDelivery[];
  duplicates: number;
  createdAt: string;
}

export interface DeliveryReservedData {
  organizationId: string;
  deliveryId: string;
  eventId: string;
  datasetId: string;
  eventName: string;
  platformEventId: string;
}

/**
 * A repeat of an accepted conversion that met flows added since: the conversion as first accepted, with
 * `deliveries` the ones queued now, `duplicates` those of this repeat that existed, `createdAt` the repeat's time.
 */
export type ConversionDeliveriesAddedData = ConversionAcceptedData;

export type ConversionEvent =
  | { type: 'ConversionAccepted'; data: ConversionAcceptedData }
  | { type: 'ConversionDeliveriesAdded'; data: ConversionDeliveriesAddedData };
export type ReservationEvent = { type: 'DeliveryReserved'; data: DeliveryReservedData };

export interface ConversionState {
  accepted: ConversionAcceptedData | null;
}

/** Event types that queue deliveries of a conversion (its acceptance, and a repeat that met new flows). */
export const QUEUEING_EVENT_TYPES = ['ConversionAccepted', 'ConversionDeliveriesAdded'] as const;
const QUEUEING = new Set<string>(QUEUEING_EVENT_TYPES);
export const isQueueingEvent = (type: string): boolean => QUEUEING.has(type);

export const initialConversionState = (): ConversionState => ({ accepted: null });

export function evolveConversion(state: ConversionState, event: ConversionEvent): ConversionState {
  switch (event.type) {
    case 'ConversionAccepted':
      return { accepted: event.data };
    case 'ConversionDeliveriesAdded':
      return { accepted: { ...state.accepted!, deliveries: [...state.accepted!.deliveries, ...event.data.deliveries] } };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const conversionAggregate = { initialState: initialConversionState, evolve: evolveConversion };
