// GET /webhooks, POST /webhooks, GET, PATCH and DELETE /webhooks/{id}.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { closePage, listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { listWebhooks, rowPosition } from '../../queries/webhooks.ts';
import { CreateWebhookBody, PatchWebhookBody, WebhookCreatedSchema, WebhookParams, WebhookSchema } from '../../commands/webhook/schemas.ts';
import { createWebhook, deleteWebhook, updateWebhook } from '../../commands/webhook/handlers.ts';
import { createdWebhookRow, liveWebhook, toWebhook, WEBHOOK_READ_MODELS, webhookAfter } from './webhookView.ts';

export const listWebhooksRoute = defineRoute({
  method: 'get',
  path: '/webhooks',
  scope: 'webhooks:read',
  summary: "The organisation's webhook subscriptions (at most 10)",
  tag: 'Webhooks',
  query: listQuery({}),
  success: { status: 200, schema: listEnvelope(WebhookSchema), description: 'A page of webhooks' },
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'webhooks', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const rows = await listWebhooks(services.pool, caller.organizationId, page);
    return { status: 200, body: closePage(rows, page, services.secrets.cursorKey, rowPosition, toWebhook) };
  },
});

export const createWebhookRoute = defineRoute({
  method: 'post',
  path: '/webhooks',
  scope: 'webhooks:write',
  summary: 'Subscribe an HTTPS endpoint to events; the signing secret is shown in this answer only. 409 limit_reached at 10',
  tag: 'Webhooks',
  body: CreateWebhookBody,
  success: { status: 201, schema: WebhookCreatedSchema, description: 'The new webhook with its signing secret' },
  errors: ['limit_reached'],
  handler: async ({ body, caller, services, metadata }) => {
    const created = await createWebhook(services, { organizationId: caller.organizationId, ...body }, metadata);
    const webhook = await webhookAfter(services, caller.organizationId, created.webhookId, created.position, createdWebhookRow(created.created));
    return { status: 201, body: { ...webhook, secret: created.secret } };
  },
});

export const getWebhookRoute = defineRoute({
  method: 'get',
  path: '/webhooks/:id',
  scope: 'webhooks:read',
  summary: 'One webhook with the result of its last attempt',
  tag: 'Webhooks',
  params: WebhookParams,
  query: z.object({}).strict(),
  success: { status: 200, schema: WebhookSchema, description: 'The webhook' },
  errors: ['not_found'],
  handler: async ({ params, caller, services }) => ({ status: 200, body: toWebhook(await liveWebhook(services, caller.organizationId, params.id)) }),
});

export const patchWebhookRoute = defineRoute({
  method: 'patch',
  path: '/webhooks/:id',
  scope: 'webhooks:write',
  summary: 'Change url, events or description; active false pauses, active true resumes and resets consecutive_failures',
  tag: 'Webhooks',
  params: WebhookParams,
  body: PatchWebhookBody,
  success: { status: 200, schema: WebhookSchema, description: 'The webhook after the change' },
  errors: ['not_found'],
  handler: async ({ params, body, caller, services, metadata }) => {
    const position = await updateWebhook(services, { organizationId: caller.organizationId, webhookId: params.id, ...body }, metadata);
    return { status: 200, body: await webhookAfter(services, caller.organizationId, params.id, position) };
  },
});

export const deleteWebhookRoute = defineRoute({
  method: 'delete',
  path: '/webhooks/:id',
  scope: 'webhooks:write',
  summary: 'Remove a webhook and its queued deliveries',
  tag: 'Webhooks',
  params: WebhookParams,
  query: z.object({}).strict(),
  success: { status: 204, schema: null, description: 'Removed' },
  errors: ['not_found'],
  handler: async ({ params, caller, services, metadata }) => {
    const position = await deleteWebhook(services, { organizationId: caller.organizationId, webhookId: params.id }, metadata);
    await services.waiter.waitFor(WEBHOOK_READ_MODELS, position, 5000);
    return { status: 204 };
  },
});
