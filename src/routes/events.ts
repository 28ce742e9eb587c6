// POST /events (queue a conversion for the platform), GET /events and GET /events/{id}.
import { z } from 'zod';
import { chars, charsRule } from '../../commands/shared/text.ts';
import { defineRoute } from '../http/route.ts';
import { closePage, listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { ApiError, validationError } from '../../commands/shared/errors.ts';
import { acceptConversion } from '../../commands/conversion/handlers.ts';
import { Event, EventAccepted, PostEventBody } from '../../commands/conversion/schemas.ts';
import { EXTERNAL_ID_MAX_CHARS, STATUS_MAX_CHARS } from '../../commands/conversion/validate.ts';
import { deliveriesOfEvents, getEvent, listEvents, type DeliveryRow, type EventRow } from '../../queries/conversions.ts';

/** The projector GET /events and GET /deliveries read: a POST writes its rows with the append, or waits for it. */
export const CONVERSIONS_READ_MODEL = 'conversions';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function deliveryItem(d: DeliveryRow) {
  return {
    id: d.id, event_id: d.event_id, target_id: d.target_id, dataset_id: d.dataset_id, event_name: d.event_name,
    platform_event_id: d.platform_event_id, mode: d.mode, status: d.status, attempts: d.attempts, last_error: d.last_error,
    accepted_at: iso(d.accepted_at), next_attempt_at: iso(d.next_attempt_at), created_at: d.created_at.toISOString(), updated_at: d.updated_at.toISOString(),
  };
}

function eventItem(e: EventRow, deliveries: DeliveryRow[]) {
  return {
    id: e.id, source_id: e.source_id, external_id: e.external_id, status: e.status, platform_event_id: e.platform_event_id,
    event_time: iso(e.event_time), value: e.value, currency: e.currency, deliveries: deliveries.map(deliveryItem),
    created_at: e.created_at.toISOString(), updated_at: e.updated_at.toISOString(),
  };
}

export const postEvent = defineRoute({
  method: 'post',
  path: '/events',
  scope: 'events:write',
  summary: 'Queue a conversion for the ad platform: one delivery per dataset of the source\'s active flows for the status',
  tag: 'Events',
  body: PostEventBody,
  success: { status: 202, schema: EventAccepted, description: 'Queued (not yet confirmed by the platform)' },
  errors: ['not_found', 'source_paused', 'event_conflict', 'payload_too_large', 'idempotency_in_progress', 'idempotency_key_reused'],
  handler: async ({ body, caller, services, metadata }) => {
    const eventTime = typeof body.event_time === 'number' ? new Date(body.event_time * 1000).toISOString() : body.event_time;
    const accepted = await acceptConversion(services, {
      organizationId: caller.organizationId, sourceId: body.source, trigger: { kind: 'status', status: body.status },
      externalId: body.external_id, eventTime, eventId: body.event_id, email: body.email, phone: body.phone, leadId: body.lead_id,
      userId: body.user_id, fbp: body.fbp, fbc: body.fbc, eventSourceUrl: body.event_source_url, trackingId: body.tracking_id,
      clientIpAddress: body.client_ip_address, clientUserAgent: body.client_user_agent, value: body.value, currency: body.currency,
      contentIds: body.content_ids,
    }, metadata);
    if (!accepted.shown) await services.waiter.waitFor([CONVERSIONS_READ_MODEL], accepted.position, 2000);
    return {
      status: 202,
      body: { event_id: accepted.eventId, deliveries_created: accepted.deliveriesCreated, duplicates: accepted.duplicates, sending_enabled: accepted.sendingEnabled },
    };
  },
});

export const listEventsRoute = defineRoute({
  method: 'get',
  path: '/events',
  scope: 'events:read',
  summary: 'List conversions with their deliveries',
  tag: 'Events',
  query: listQuery({
    source: z.string().min(1).max(64).optional().describe('Source id'),
    status: chars(1, STATUS_MAX_CHARS).optional().describe("The caller's status"),
    external_id: chars(1, EXTERNAL_ID_MAX_CHARS).optional().describe("The caller's record id"),
  }),
  success: { status: 200, schema: listEnvelope(Event), description: 'A page of events' },
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'events', organizationId: caller.organizationId }, services.secrets.cursorKey);
    // POST /events keeps external_id and status trimmed: the values as the caller sent them find them. A blank
    // one is refused there, so it is here too, as an empty one is (it used to answer an empty page).
    const status = query.status?.trim();
    const externalId = query.external_id?.trim();
    if (status === '') throw validationError('status', charsRule(1, STATUS_MAX_CHARS));
    if (externalId === '') throw validationError('external_id', charsRule(1, EXTERNAL_ID_MAX_CHARS));
    const rows = await listEvents(services.pool, caller.organizationId, page, { source: query.source, status, external_id: externalId });
    const deliveries = await deliveriesOfEvents(services.pool, caller.organizationId, rows.slice(0, page.limit).map((r) => r.id));
    const byEvent = new Map<string, DeliveryRow[]>();
    for (const d of deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
    return {
      status: 200,
      body: closePage(rows, page, services.secrets.cursorKey, (r) => ({ updatedAt: r.updated_key, id: r.id }), (r) => eventItem(r, byEvent.get(r.id) ?? [])),
    };
  },
});

export const getEventRoute = defineRoute({
  method: 'get',
  path: '/events/:id',
  scope: 'events:read',
  summary: 'One conversion with its deliveries (never its payload)',
  tag: 'Events',
  params: z.object({ id: z.string().min(1).max(64) }).strict(),
  query: z.object({}).strict(),
  success: { status: 200, schema: Event, description: 'The event' },
  errors: ['not_found'],
  handler: async ({ params, caller, services }) => {
    const event = await getEvent(services.pool, caller.organizationId, params.id);
    if (!event) throw new ApiError('not_found', { event_id: params.id });
    const deliveries = await deliveriesOfEvents(services.pool, caller.organizationId, [event.id]);
    return { status: 200, body: eventItem(event, deliveries) };
  },
});
