// Every projector of the service. Each lives in projections/<name>/ with its SQL beside it.
import type { Projector } from './projector.ts';
import { accessProjector } from '../../projections/access/projector.ts';
import { contactsProjector } from '../../projections/contacts/projector.ts';
import { setupProjector } from '../../projections/setup/projector.ts';
import { jobsProjector } from '../../projections/jobs/projector.ts';
import { adCatalogProjector } from '../../projections/ad_catalog/projector.ts';
import { conversionsProjector } from '../../projections/conversions/projector.ts';
import { deliveryQueueProjector } from '../../projections/delivery_queue/projector.ts';
import { reportingLeadsProjector } from '../../projections/reporting_leads/projector.ts';
import { reportingAdsProjector } from '../../projections/reporting_ads/projector.ts';
import { webhooksProjector } from '../../projections/webhooks/projector.ts';
import { webhookOutboxProjector } from '../../projections/webhook_outbox/projector.ts';

export const projectors: Projector[] = [
  accessProjector,
  contactsProjector,
  setupProjector,
  jobsProjector,
  adCatalogProjector,
  conversionsProjector,
  deliveryQueueProjector,
  reportingLeadsProjector,
  reportingAdsProjector,
  webhooksProjector,
  webhookOutboxProjector,
];
