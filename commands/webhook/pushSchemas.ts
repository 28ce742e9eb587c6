// zod schemas of the webhook pushes: the body the service POSTs to a subscriber for each type (the
// specification's "Events"; the envelope and the payloads it leaves open are DESIGN.md's decisions).
import { z } from 'zod';
import { AdSourceSchema, StageSchema } from '../contact/schemas.ts';
import type { PushType } from './webhook.ts';

const id = (what: string) => z.string().describe(what);

export const PUSH_PAYLOADS = {
  'contact.created': z.object({
    contact_id: id('The new person (contact id)'),
    stage: StageSchema.describe('The person\'s stage: new'),
    first_source: z.string().describe('Where the person first came from (form name, api, ...)'),
  }).meta({ id: 'ContactCreatedPayload' }),
  'contact.stage_changed': z.object({
    contact_id: id('Contact id'),
    from: StageSchema.describe('Stage before the change'),
    to: StageSchema.describe('Stage after the change (new when a new lead reopens a sold or rejected person)'),
    cycle: z.number().int().describe('Sales cycle of the person after the change'),
    value: z.number().nullable().describe('Sale value given with the change; null when none'),
    currency: z.string().nullable().describe('Currency of value; null when none'),
  }).meta({ id: 'ContactStageChangedPayload' }),
  'lead.created': z.object({
    lead_id: id('Lead id in the service'),
    contact_id: id('The person of the lead'),
    form_id: id('Service source (form) id'),
    platform_lead_id: id('Lead id at the ad platform'),
    cycle: z.number().int().describe('Sales cycle the lead belongs to'),
    ad: AdSourceSchema.nullable().describe('Ad the lead came from; null for organic or unknown'),
  }).meta({ id: 'LeadCreatedPayload' }),
  'delivery.failed': z.object({
    delivery_id: id('Delivery id'),
    event_id: id('Service event id'),
    target_id: id('Platform receiver (dataset connection) id'),
    dataset_id: id('Platform dataset (pixel) id'),
    event_name: z.string().describe('Platform event name'),
    attempts: z.number().int().describe('Attempts made'),
    last_error: z.string().describe('Why the last attempt failed'),
  }).meta({ id: 'DeliveryFailedPayload' }),
  ping: z.object({
    webhook_id: id('The subscription tested by POST /webhooks/{id}/test'),
  }).meta({ id: 'PingPayload' }),
} as const satisfies Record<PushType, z.ZodType>;

/** The type in one word: contact.stage_changed is ContactStageChanged. */
export const pushName = (type: PushType) => type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/** The whole body of a push of this type: { id, type, created_at, data }. */
export function pushBodySchema(type: PushType) {
  return z.object({
    id: z.string().describe('The delivery id: equal to X-Service-Delivery, the same on every retry (de-duplicate on it)'),
    type: z.literal(type).describe('The event type, as in X-Service-Event'),
    created_at: z.iso.datetime().describe('When the event happened'),
    data: PUSH_PAYLOADS[type],
  }).meta({ id: `${pushName(type)}Push` });
}

export const PUSH_BODIES = Object.fromEntries(
  (Object.keys(PUSH_PAYLOADS) as PushType[]).map((type) => [type, pushBodySchema(type)]),
) as Record<PushType, ReturnType<typeof pushBodySchema>>;

/**
 * A queued payload with its keys in the order documented above (an `ad` in the AdSource order GET /leads
 * shows): the queue keeps payloads as jsonb, which stores an object's keys shortest first. A payload its
 * schema does not describe is left as it is.
 */
export function inPayloadOrder(type: string, data: unknown): unknown {
  if (!Object.hasOwn(PUSH_PAYLOADS, type)) return data;
  const parsed = PUSH_PAYLOADS[type as PushType].safeParse(data);
  return parsed.success ? parsed.data : data;
}
