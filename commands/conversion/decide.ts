// Accepting a conversion: route it to the source's active flows, one delivery per dataset, counting
// deliveries that already exist (same dataset, event name and platform event id) as duplicates.
import { ApiError, validationError } from '../shared/errors.ts';
import {
  reservationStream,
  type ConversionAcceptedData,
  type ConversionEvent,
  type ConversionState,
  type PlannedDelivery,
  type ReservationEvent,
} from './conversion.ts';

export interface Route extends PlannedDelivery {
  /** Names the reservation stream of (organisation, dataset, event name, platform event id). */
  reservationKey: string;
}

export interface AcceptConversion {
  conversion: Omit<ConversionAcceptedData, 'deliveries' | 'duplicates'>;
  /** The source as the read model knows it; null when the organisation has no such source. */
  source: { kind: string; paused: boolean } | null;
  routes: Route[];
  /** Reservation keys that an earlier append found taken. */
  reserved: ReadonlySet<string>;
}

export interface AcceptResult {
  eventId: string;
  deliveriesCreated: number;
  duplicates: number;
}

export interface AcceptDecision {
  events: ConversionEvent[];
  reservations: { stream: string; event: ReservationEvent }[];
  result: AcceptResult;
}

function repeat(state: ConversionState, cmd: AcceptConversion): AcceptDecision {
  const accepted = state.accepted!;
  if (accepted.fingerprint !== cmd.conversion.fingerprint) {
    throw new ApiError('event_conflict', { event_id: accepted.eventId }, 'an event with this event_id was accepted with other content');
  }
  // The same event again: every delivery it maps to exists already.
  return { events: [], reservations: [], result: { eventId: accepted.eventId, deliveriesCreated: 0, duplicates: accepted.deliveries.length + accepted.duplicates } };
}

export function decideAcceptConversion(state: ConversionState, cmd: AcceptConversion): AcceptDecision {
  if (!cmd.source) throw new ApiError('not_found', { source: cmd.conversion.sourceId }, 'unknown source');
  if (cmd.source.kind === 'form' && cmd.conversion.trigger.kind === 'status') {
    throw validationError('source', 'a spreadsheet or shop source; form sources convert through lead stages');
  }
  if (cmd.source.paused) throw new ApiError('source_paused', { source: cmd.conversion.sourceId });
  if (state.accepted) return repeat(state, cmd);
  if (cmd.conversion.value === null && cmd.routes.some((r) => r.eventName === 'Purchase')) {
    throw validationError('value', 'required for a Purchase event');
  }
  const seen = new Set<string>();
  const deliveries: PlannedDelivery[] = [];
  const reservations: AcceptDecision['reservations'] = [];
  for (const { reservationKey, ...delivery } of cmd.routes) {
    if (cmd.reserved.has(reservationKey) || seen.has(reservationKey)) continue;
    seen.add(reservationKey);
    deliveries.push(delivery);
    const { organizationId, eventId, platformEventId } = cmd.conversion;
    reservations.push({
      stream: reservationStream(reservationKey),
      event: { type: 'DeliveryReserved', data: { organizationId, deliveryId: delivery.deliveryId, eventId, datasetId: delivery.datasetId, eventName: delivery.eventName, platformEventId } },
    });
  }
  const duplicates = cmd.routes.length - deliveries.length;
  return {
    events: [{ type: 'ConversionAccepted', data: { ...cmd.conversion, deliveries, duplicates } }],
    reservations,
    result: { eventId: cmd.conversion.eventId, deliveriesCreated: deliveries.length, duplicates },
  };
}
