// Accepting a conversion: route it to the source's active flows, one delivery per dataset, counting
// deliveries that already exist (same dataset, event name and platform event id) as duplicates. A repeat
// queues only the deliveries of flows added since.
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
  /** Nothing, a ConversionAccepted, or (a repeat meeting new flows) a ConversionDeliveriesAdded. */
  events: ConversionEvent[];
  reservations: { stream: string; event: ReservationEvent }[];
  result: AcceptResult;
}

/** The routes to queue now, one per reservation key: those neither taken already nor found taken by an append. */
function reserve(cmd: AcceptConversion, routes: Route[]): { deliveries: PlannedDelivery[]; reservations: AcceptDecision['reservations'] } {
  const seen = new Set<string>();
  const deliveries: PlannedDelivery[] = [];
  const reservations: AcceptDecision['reservations'] = [];
  for (const { reservationKey, ...delivery } of routes) {
    if (cmd.reserved.has(reservationKey) || seen.has(reservationKey)) continue;
    seen.add(reservationKey);
    deliveries.push(delivery);
    const { organizationId, eventId, platformEventId } = cmd.conversion;
    reservations.push({
      stream: reservationStream(reservationKey),
      event: { type: 'DeliveryReserved', data: { organizationId, deliveryId: delivery.deliveryId, eventId, datasetId: delivery.datasetId, eventName: delivery.eventName, platformEventId } },
    });
  }
  return { deliveries, reservations };
}

function requireValueForPurchase(cmd: AcceptConversion, routes: Route[]): void {
  if (cmd.conversion.value === null && routes.some((r) => r.eventName === 'Purchase')) {
    throw validationError('value', 'required for a Purchase event');
  }
}

/**
 * The same event again. Deduplication is per delivery: a flow added since the first acceptance queues its
 * delivery now (a spreadsheet synced before its flows existed is sent once they do); what exists is a duplicate.
 */
function repeat(state: ConversionState, cmd: AcceptConversion): AcceptDecision {
  const accepted = state.accepted!;
  if (accepted.fingerprint !== cmd.conversion.fingerprint) {
    throw new ApiError('event_conflict', { event_id: accepted.eventId }, 'an event with this event_id was accepted with other content');
  }
  const queued = new Set(accepted.deliveries.map((d) => `${d.datasetId}\u0000${d.eventName}`));
  const fresh = cmd.routes.filter((r) => !queued.has(`${r.datasetId}\u0000${r.eventName}`));
  if (fresh.length === 0) {
    return { events: [], reservations: [], result: { eventId: accepted.eventId, deliveriesCreated: 0, duplicates: accepted.deliveries.length + accepted.duplicates } };
  }
  requireValueForPurchase(cmd, fresh);
  const { deliveries, reservations } = reserve(cmd, fresh);
  const duplicates = cmd.routes.length - deliveries.length;
  const result = { eventId: accepted.eventId, deliveriesCreated: deliveries.length, duplicates };
  if (deliveries.length === 0) return { events: [], reservations: [], result };
  return {
    events: [{ type: 'ConversionDeliveriesAdded', data: { ...accepted, deliveries, duplicates, createdAt: cmd.conversion.createdAt } }],
    reservations,
    result,
  };
}

export function decideAcceptConversion(state: ConversionState, cmd: AcceptConversion): AcceptDecision {
  if (!cmd.source) throw new ApiError('not_found', { source: cmd.conversion.sourceId }, 'unknown source');
  if (cmd.source.kind === 'form' && cmd.conversion.trigger.kind === 'status') {
    throw validationError('source', 'a spreadsheet or shop source; form sources convert through lead stages');
  }
  if (cmd.source.paused) throw new ApiError('source_paused', { source: cmd.conversion.sourceId });
  if (state.accepted) return repeat(state, cmd);
  requireValueForPurchase(cmd, cmd.routes);
  const { deliveries, reservations } = reserve(cmd, cmd.routes);
  const duplicates = cmd.routes.length - deliveries.length;
  return {
    events: [{ type: 'ConversionAccepted', data: { ...cmd.conversion, deliveries, duplicates } }],
    reservations,
    result: { eventId: cmd.conversion.eventId, deliveriesCreated: deliveries.length, duplicates },
  };
}
