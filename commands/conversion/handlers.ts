// Accepting a conversion: check and hash it, route it by the source's active flows, and append the
// conversion with its delivery reservations in one atomic append. Optimistic: every stream is appended
// with 'no_stream' (on PostgreSQL together with the other conversions of the moment, see writer.ts); a
// stream found taken is read (or counted as a duplicate) and the decision made again.
import type { Services } from '../../src/services.ts';
import { WrongExpectedVersionError, type EventMetadata, type Position } from '../../src/eventstore/port.ts';
import { loadAggregate } from '../../src/eventstore/handle.ts';
import { routingFor, type Routing } from '../../queries/setup.ts';
import { sourceAggregate, sourceStream } from '../source/source.ts';
import { conversionAggregate, conversionStream, reservationStream, type ConversionState } from './conversion.ts';
import { checkConversion, type CheckedInput, type ConversionInput } from './validate.ts';
import { decideAcceptConversion } from './decide.ts';
import { appendRequests, prepare, routesOf } from './plan.ts';
import type { ConversionAppend } from './writer.ts';

export type { ConversionInput };

export interface Accepted {
  eventId: string;
  deliveriesCreated: number;
  duplicates: number;
  sendingEnabled: boolean;
  position: Position;
  /** The conversion's read model rows were written with its events: readers see it without waiting. */
  shown: boolean;
}

const MAX_ATTEMPTS = 8;

/** The routing, or for a source too new for the read model, its stream (it has no flows yet then). */
async function loadRouting(services: Services, c: CheckedInput): Promise<Routing> {
  const value = c.trigger.kind === 'status' ? c.trigger.status : c.trigger.stage;
  const routing = await routingFor(services.pool, c.organizationId, c.sourceId, { kind: c.trigger.kind, value });
  if (routing.source) return routing;
  const { state } = await loadAggregate(services.store, sourceStream(c.sourceId), sourceAggregate);
  if (!state.exists || state.organizationId !== c.organizationId) return routing;
  return { ...routing, source: { kind: state.kind!, paused: state.paused } };
}

/** One atomic append; with the writer (PostgreSQL) the read model rows commit with the events. */
async function appendConversion(services: Services, append: ConversionAppend): Promise<{ position: Position; shown: boolean }> {
  const writer = services.conversionWriter;
  if (writer) return { position: await writer.append(append), shown: true };
  return { position: (await services.store.appendMany(append.requests, append.metadata)).position, shown: false };
}

export async function acceptConversion(services: Services, input: ConversionInput, metadata: EventMetadata): Promise<Accepted> {
  const now = services.now();
  const checked = checkConversion(input, now);
  const writer = services.conversionWriter;
  if (writer) {
    // A group that failed as a whole (another member's fault, or one met again alone and reported) is
    // decided alone, like a conversion whose stream was found taken.
    const outcome = await writer.accept({ checked, now, metadata }).catch(() => null);
    if (outcome && 'error' in outcome) throw outcome.error;
    if (outcome) return { ...outcome.result, sendingEnabled: services.config.platformSending, position: outcome.position, shown: true };
  }
  return acceptAlone(services, checked, now, metadata);
}

/** Read, decide, append; a stream found taken is read (or counted as a duplicate) and the decision made again. */
async function acceptAlone(services: Services, checked: CheckedInput, now: Date, metadata: EventMetadata): Promise<Accepted> {
  const routing = await loadRouting(services, checked);
  const conversion = prepare(checked, routing, now);
  const routes = routesOf(conversion, routing);
  const stream = conversionStream(conversion.eventId);
  const reserved = new Set<string>();
  let state: ConversionState = conversionAggregate.initialState();
  let position: Position | null = null;
  let revision: bigint | null = null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const decision = decideAcceptConversion(state, { conversion, source: routing.source, routes, reserved });
    const done = (at: Position, shown: boolean) => ({ ...decision.result, sendingEnabled: services.config.platformSending, position: at, shown });
    if (decision.events.length === 0) return done(position!, false);
    try {
      if (decision.events[0].type === 'ConversionDeliveriesAdded') {
        // Rare (a repeat meeting new flows): the projectors apply it, and the caller waits for them.
        const appended = await services.store.appendMany(appendRequests(stream, decision, revision!), metadata);
        return done(appended.position, false);
      }
      const appended = await appendConversion(services, { requests: appendRequests(stream, decision), metadata, conversion: decision.events[0].data });
      return done(appended.position, appended.shown);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (error.stream === stream) {
        const events = await services.store.readStream(stream);
        state = events.reduce((s, e) => conversionAggregate.evolve(s, e as never), conversionAggregate.initialState());
        position = events[events.length - 1]?.position ?? null;
        revision = events[events.length - 1]?.revision ?? null;
      } else {
        const route = routes.find((r) => reservationStream(r.reservationKey) === error.stream);
        if (!route) throw error;
        reserved.add(route.reservationKey);
      }
    }
  }
  throw new Error(`conversion ${conversion.eventId}: too many concurrent writers`);
}
