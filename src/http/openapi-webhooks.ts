// The `webhooks` section of the OpenAPI document: each push the service POSTs to a subscriber's URL, with
// its signed headers and its body, from the same zod schemas the pushes are tested against.
import { PUSH_BODIES, pushName } from '../../commands/webhook/pushSchemas.ts';
import type { PushType } from '../../commands/webhook/webhook.ts';
import type { JsonSchema, SchemaCollector } from './openapi-schemas.ts';

const SUMMARIES: Record<PushType, string> = {
  'contact.created': 'A person was added (form lead, manual, API, automation)',
  'contact.stage_changed': "A person's stage changed (a new lead reopening a sold or rejected person moves it back to new)",
  'lead.created': 'A lead joined its person, with its data',
  'delivery.failed': 'A conversion delivery to the ad platform failed for good',
  ping: 'The signed test event queued by POST /webhooks/{id}/test',
};

const header = (name: string, description: string, schema: JsonSchema) => ({ name, in: 'header', required: true, description, schema });

function headers(type: PushType): unknown[] {
  return [
    header('X-Service-Signature', '`sha256=` and the hex HMAC-SHA256 of `{X-Service-Timestamp}.{raw body}`, keyed with the webhook secret',
      { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }),
    header('X-Service-Timestamp', 'Unix seconds of this attempt; reject values older than 5 minutes', { type: 'integer', minimum: 0 }),
    header('X-Service-Event', 'The event type', { type: 'string', const: type }),
    header('X-Service-Delivery', "The delivery id: the body's id, the same on every retry of the delivery", { type: 'string' }),
  ];
}

export function webhookPushes(schemas: SchemaCollector): Record<string, unknown> {
  return Object.fromEntries((Object.keys(PUSH_BODIES) as PushType[]).map((type) => [type, {
    post: {
      operationId: `push${pushName(type)}`,
      summary: SUMMARIES[type],
      tags: ['Webhooks'],
      security: [],
      parameters: headers(type),
      requestBody: { required: true, content: { 'application/json': { schema: schemas.convert(PUSH_BODIES[type], 'output') } } },
      responses: {
        '2XX': { description: 'Success. Anything else, a redirect (never followed) or no answer within the time-out is a failed attempt, retried later' },
      },
    },
  }]));
}
