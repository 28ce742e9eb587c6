// zod schemas of the webhook endpoints: bodies (strict) and the resources they answer with.
import { z } from 'zod';
import { chars } from '../shared/text.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../../src/webhooks/url.ts';
import { WEBHOOK_EVENT_TYPES } from './webhook.ts';

const time = z.iso.datetime();

export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

const url = chars(1, MAX_WEBHOOK_URL_LENGTH)
  .describe('HTTPS endpoint that receives the pushes: no credentials, no private, loopback or link-local address, at most 2000 characters');
const events = z.array(WebhookEventTypeSchema).min(1).max(20).describe('Event types to push (repeats are ignored)');
const description = chars(0, 200).describe("The caller's note, at most 200 characters");

export const WebhookParams = z.object({ id: z.string().min(1).max(100).describe('Webhook id') }).strict();

export const CreateWebhookBody = z.object({ url, events, description: description.optional() }).strict();

export const PatchWebhookBody = z.object({
  url: url.optional(),
  events: events.optional().describe('Replaces the subscribed events; queued pushes of a type no longer subscribed are dropped (a test ping stays)'),
  description: description.optional(),
  active: z.boolean().optional().describe('false pauses deliveries; true resumes them and resets consecutive_failures'),
}).strict().refine((b) => Object.keys(b).length > 0, { message: 'give at least one of url, events, description, active' });

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  events: z.array(WebhookEventTypeSchema),
  active: z.boolean().describe('False pauses deliveries'),
  last_status: z.number().int().describe('HTTP status of the last attempt (0 = no answer)'),
  last_error: z.string().describe('Last error (why it paused itself, after an automatic pause)'),
  last_delivery_at: time.nullable().describe('Last attempt'),
  consecutive_failures: z.number().int().describe('Failed attempts in a row'),
  created_at: time,
  updated_at: time,
}).meta({ id: 'Webhook' });

export const WebhookCreatedSchema = WebhookSchema.extend({
  secret: z.string().describe('The signing secret (whsec_...); shown only by create and rotate-secret'),
}).meta({ id: 'WebhookCreated' });

export const PingQueuedSchema = z.object({
  delivery_id: z.string().describe('X-Service-Delivery of the ping'),
  event: z.literal('ping'),
  status: z.literal('queued'),
}).meta({ id: 'WebhookPingQueued' });

export const AttemptSchema = z.object({
  id: z.string(),
  delivery_id: z.string().describe('X-Service-Delivery: the same on every attempt of one delivery'),
  event: z.string().describe('Event type pushed'),
  attempt: z.number().int().describe('1-based attempt number of the delivery'),
  status: z.number().int().describe('HTTP status (0 = no answer)'),
  success: z.boolean(),
  error: z.string().describe('Empty on success'),
  duration_ms: z.number().int(),
  created_at: time.describe('When the attempt started'),
}).meta({ id: 'WebhookDeliveryAttempt' });
