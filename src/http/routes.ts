// The route table: every /v1 endpoint, in the order the OpenAPI document lists them.
import type { RouteDef } from './route.ts';
import { getMe } from '../routes/me.ts';
import { createContactRoute, getContactRoute, listContactsRoute, patchContactRoute } from '../routes/contacts.ts';
import { contactNoteRoute, contactSmsOptoutRoute, contactStageRoute, contactTagsRoute } from '../routes/contactActions.ts';
import { getLeadRoute, listLeadsRoute } from '../routes/leads.ts';
import { getCampaignReport, getCreativeReport } from '../routes/reports.ts';
import { getJobRoute, listJobsRoute } from '../routes/jobs.ts';
import { getEventRoute, listEventsRoute, postEvent } from '../routes/events.ts';
import { listDeliveriesRoute } from '../routes/deliveries.ts';
import { createWebhookRoute, deleteWebhookRoute, getWebhookRoute, listWebhooksRoute, patchWebhookRoute } from '../routes/webhooks.ts';
import { listWebhookDeliveriesRoute, rotateWebhookSecretRoute, testWebhookRoute } from '../routes/webhookActions.ts';

export const routes: RouteDef[] = [
  getMe,
  listContactsRoute,
  createContactRoute,
  getContactRoute,
  patchContactRoute,
  contactStageRoute,
  contactNoteRoute,
  contactTagsRoute,
  contactSmsOptoutRoute,
  listLeadsRoute,
  getLeadRoute,
  postEvent,
  listEventsRoute,
  getEventRoute,
  listDeliveriesRoute,
  getCampaignReport,
  getCreativeReport,
  listJobsRoute,
  getJobRoute,
  listWebhooksRoute,
  createWebhookRoute,
  getWebhookRoute,
  patchWebhookRoute,
  deleteWebhookRoute,
  testWebhookRoute,
  rotateWebhookSecretRoute,
  listWebhookDeliveriesRoute,
];
