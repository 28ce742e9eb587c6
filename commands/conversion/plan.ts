// Planning a conversion's append from the routing read for it: checked input -> hashed, routed conversion
// -> the decision's append requests. Shared by the grouped writer and the lone path of acceptConversion.
import type { AppendRequest } from '../../src/eventstore/port.ts';
import { uuidFromParts } from '../../src/crypto/deterministicId.ts';
import { hashEmail, hashExternalId, hashPhone, isSha256Hex, normalizePhone, sha256Hex as sha256 } from '../../src/platform/normalize.ts';
import type { Routing } from '../../queries/setup.ts';
import { validationError } from '../shared/errors.ts';
import type { ConversionAcceptedData } from './conversion.ts';
import type { CheckedInput } from './validate.ts';
import type { AcceptDecision, Route } from './decide.ts';

function hashPhoneChecked(raw: string | undefined, countryCode: string): string | null {
  if (raw === undefined) return null;
  if (isSha256Hex(raw)) return raw;
  const digits = normalizePhone(raw, countryCode);
  if (digits === null || digits.length < 7 || digits.length > 15 || /[^\d\s()+.-]/.test(raw)) throw validationError('phone', 'a phone number, E.164 (+48601234567)');
  return hashPhone(raw, countryCode);
}

export type Prepared = Omit<ConversionAcceptedData, 'deliveries' | 'duplicates'>;

export function prepare(c: CheckedInput, routing: Routing, now: Date): Prepared {
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

export function routesOf(conversion: Prepared, routing: Routing): Route[] {
  return routing.routes.map((r) => ({
    deliveryId: uuidFromParts('delivery', conversion.eventId, r.targetId, r.eventName),
    targetId: r.targetId, datasetId: r.datasetId, eventName: r.eventName, mode: r.mode,
    testEventCode: r.mode === 'test' ? r.testCode : null,
    reservationKey: sha256([conversion.organizationId, r.datasetId, r.eventName, conversion.platformEventId].join('\u0000')),
  }));
}

/**
 * The conversion's stream, then its delivery reservations in stream-name order: two conversions of one event_id from
 * different sources claim the same reservations, and claimed in one order they cannot deadlock on them (flows give
 * them in creation order, which differs between sources). The group commit sorts its claims the same way.
 * A repeat that adds deliveries appends to the conversion's stream at the revision it read.
 */
export function appendRequests(stream: string, decision: AcceptDecision, expectedRevision: AppendRequest['expectedRevision'] = 'no_stream'): AppendRequest[] {
  const reservations = [...decision.reservations].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  return [
    { stream, events: decision.events, expectedRevision },
    ...reservations.map((r) => ({ stream: r.stream, events: [r.event], expectedRevision: 'no_stream' as const })),
  ];
}
