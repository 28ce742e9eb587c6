// POST /webhooks/{id}/test, POST /webhooks/{id}/rotate-secret, GET /webhooks/{id}/deliveries.
import { defineRoute } from '../http/route.ts';
import { closePage, listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { listAttempts, rowPosition } from '../../queries/webhooks.ts';
import { AttemptSchema, PingQueuedSchema, WebhookCreatedSchema, WebhookParams } from '../../commands/webhook/schemas.ts';
import { requestPing, rotateWebhookSecret } from '../../commands/webhook/handlers.ts';
import { liveWebhook, toAttempt, webhookAfter } from './webhookView.ts';

export const testWebhookRoute = defineRoute({
  method: 'post',
  path: '/webhooks/:id/test',
  scope: 'webhooks:write',
  summary: 'Queue a signed ping to the webhook (sent once the webhook is active)',
  tag: 'Webhooks',
  params: WebhookParams,
  success: { status: 202, schema: PingQueuedSchema, description: 'The ping is queued' },
  errors: ['not_found'],
  handler: async ({ params, caller, services, metadata }) => {
    const { deliveryId, position } = await requestPing(services, { organizationId: caller.organizationId, webhookId: params.id }, metadata);
    await services.waiter.waitFor(['webhook_outbox'], position, 5000);
    return { status: 202, body: { delivery_id: deliveryId, event: 'ping' as const, status: 'queued' as const } };
  },
});

export const rotateWebhookSecretRoute = defineRoute({
  method: 'post',
  path: '/webhooks/:id/rotate-secret',
  scope: 'webhooks:write',
  summary: 'Replace the signing secret at once; deliveries still queued are signed with the new one',
  tag: 'Webhooks',
  params: WebhookParams,
  success: { status: 200, schema: WebhookCreatedSchema, description: 'The webhook with its new signing secret' },
  errors: ['not_found'],
  handler: async ({ params, caller, services, metadata }) => {
    const rotated = await rotateWebhookSecret(services, { organizationId: caller.organizationId, webhookId: params.id }, metadata);
    const webhook = await webhookAfter(services, caller.organizationId, params.id, rotated.position);
    return { status: 200, body: { ...webhook, secret: rotated.secret } };
  },
});

export const listWebhookDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/webhooks/:id/deliveries',
  scope: 'webhooks:read',
  summary: 'Push attempts of the webhook, newest first (kept 30 days)',
  tag: 'Webhooks',
  params: WebhookParams,
  query: listQuery({}),
  success: { status: 200, schema: listEnvelope(AttemptSchema), description: 'A page of attempts' },
  errors: ['not_found', 'invalid_cursor'],
  handler: async ({ params, query, caller, services }) => {
    await liveWebhook(services, caller.organizationId, params.id);
    const page = openPage({ ...query, webhook: params.id }, { list: 'webhook_deliveries', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const rows = await listAttempts(services.pool, caller.organizationId, params.id, page, services.now());
    return { status: 200, body: closePage(rows, page, services.secrets.cursorKey, rowPosition, toAttempt) };
  },
});
