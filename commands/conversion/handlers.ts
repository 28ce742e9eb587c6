// Accepting a conversion: check and hash it, route it by the source's active flows, and append the
// conversion with its delivery reservations in one atomic append. Optimistic: every stream is appended
// with 'no_stream'; a stream found taken is read (or counted as a duplicate) and the decision made again.
import { createHash } from 'node:crypto';
import type { Services } from '../../src/services.ts';
import { WrongExpectedVersionError, type AppendRequest, type EventMetadata, type Position } from '../../src/eventstore/port.ts';
import { loadAggregate } from '../../src/eventstore/handle.ts';
import { uuidFromParts } from '../../src/crypto/deterministicId.ts';
import { hashEmail, hashExternalId, hashPhone, isSha256Hex, normalizePhone } from '../../src/platform/normalize.ts';
import { routingFor, type Routing } from '../../queries/setup.ts';
import { validationError } from '../shared/errors.ts';
import { sourceAggregate, sourceStream } from '../source/source.ts';
import { conversionAggregate, conversionStream, reservationStream, type ConversionAcceptedData, type ConversionState } from './conversion.ts';
import { checkConversion, type CheckedInput, type ConversionInput } from './validate.ts';
import { decideAcceptConversion, type AcceptDecision, type Route } from './decide.ts';
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const MAX_ATTEMPTS = 8;

function hashPhoneChecked(raw: string | undefined, countryCode: string): string | null {
  if (raw === undefined) return null;
  if (isSha256Hex(raw)) return raw;
  const digits = normalizePhone(raw, countryCode);
  if (digits === null || digits.length < 7 || digits.length > 15 || /[^\d\s()+.-]/.test(raw)) throw validationError('phone', 'a phone number, E.164 (+48601234567)');
  return hashPhone(raw, countryCode);
}

type Prepared = Omit<ConversionAcceptedData, 'deliveries' | 'duplicates'>;

function prepare(c: CheckedInput, routing: Routing, now: Date): Prepared {
  const triggerValue = c.trigger.kind === 'status' ? c.trigger.status : c.trigger.stage;
  const platformEventId = c.eventId ?? uuidFromParts('platform-event', c.sourceId, c.externalId, triggerValue);
  const userData = {
    em: c.email === undefined ? null : hashEmail(c.email),
    ph: hashPhoneChecked(c.phone, routing.phoneCountryCode),
    externalId: c.userId === undefined ? null : hashExternalId(c.userId),
    fbp: c.fbp ?? null, fbc: c.fbc ?? null, clientIpAddress: c.clientIpAddress ?? null,
    clientUserAgent: c.clientUserAgent ?? null, leadId: c.leadId ?? null,
  };
  const content = {
    trigger: c.trigger, externalId: c.externalId, eventTime: c.eventTime, userData, value: c.value ?? null, currency: c.currency ?? null,
    contentIds: c.contentIds ?? null, eventSourceUrl: c.eventSourceUrl ?? null, trackingId: c.trackingId ?? null,
  };
  // A shop event is a website event only with what the platform needs for one (page URL and browser agent).
  const website = routing.source?.kind === 'shop' && c.eventSourceUrl !== undefined && c.clientUserAgent !== undefined;
  return {
    ...content,
    eventId: uuidFromParts('conversion', c.organizationId, c.sourceId, platformEventId),
    organizationId: c.organizationId, sourceId: c.sourceId, status: triggerValue, platformEventId,
    eventTime: c.eventTime ?? now.toISOString(), actionSource: website ? 'website' : 'system_generated',
    fingerprint: sha256(JSON.stringify(content)), createdAt: now.toISOString(),
  };
}

function routesOf(conversion: Prepared, routing: Routing): Route[] {
  return routing.routes.map((r) => ({
    deliveryId: uuidFromParts('delivery', conversion.eventId, r.targetId, r.eventName),
    targetId: r.targetId, datasetId: r.datasetId, eventName: r.eventName, mode: r.mode,
    testEventCode: r.mode === 'test' ? r.testCode : null,
    reservationKey: sha256([conversion.organizationId, r.datasetId, r.eventName, conversion.platformEventId].join('\u0000')),
  }));
}

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

function appendRequests(stream: string, decision: AcceptDecision): AppendRequest[] {
  return [
    { stream, events: decision.events, expectedRevision: 'no_stream' },
    ...decision.reservations.map((r) => ({ stream: r.stream, events: [r.event], expectedRevision: 'no_stream' as const })),
  ];
}

export async function acceptConversion(services: Services, input: ConversionInput, metadata: EventMetadata): Promise<Accepted> {
  const now = services.now();
  const checked = checkConversion(input, now);
  const routing = await loadRouting(services, checked);
  const conversion = prepare(checked, routing, now);
  const routes = routesOf(conversion, routing);
  const stream = conversionStream(conversion.eventId);
  const reserved = new Set<string>();
  let state: ConversionState = conversionAggregate.initialState();
  let position: Position | null = null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const decision = decideAcceptConversion(state, { conversion, source: routing.source, routes, reserved });
    const done = (at: Position, shown: boolean) => ({ ...decision.result, sendingEnabled: services.config.platformSending, position: at, shown });
    if (decision.events.length === 0) return done(position!, false);
    const append = { requests: appendRequests(stream, decision), metadata, conversion: decision.events[0].data };
    // The common case, every stream new, goes with the other conversions of the moment in one transaction.
    // A stream found taken is read below, as after a failed append; so is a group that failed as a whole
    // (another member's fault, or one this append meets again on its own and reports).
    if (attempt === 0 && services.conversionWriter) {
      const grouped = await services.conversionWriter.appendNew(append).catch(() => null);
      if (grouped) return done(grouped, true);
    }
    try {
      const appended = await appendConversion(services, append);
      return done(appended.position, appended.shown);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (error.stream === stream) {
        const events = await services.store.readStream(stream);
        state = events.reduce((s, e) => conversionAggregate.evolve(s, e as never), conversionAggregate.initialState());
        position = events[events.length - 1]?.position ?? null;
      } else {
        const route = routes.find((r) => reservationStream(r.reservationKey) === error.stream);
        if (!route) throw error;
        reserved.add(route.reservationKey);
      }
    }
  }
  throw new Error(`conversion ${conversion.eventId}: too many concurrent writers`);
}
