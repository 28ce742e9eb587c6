// GET /deliveries: each conversion's deliveries to its datasets, with their status.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { closePage, listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { DELIVERY_STATUSES, Delivery } from '../../commands/conversion/schemas.ts';
import { listDeliveries } from '../../queries/conversions.ts';
import { deliveryItem } from './events.ts';

export const listDeliveriesRoute = defineRoute({
  method: 'get',
  path: '/deliveries',
  scope: 'events:read',
  summary: 'List deliveries of conversions to platform datasets',
  tag: 'Events',
  query: listQuery({
    status: z.enum(DELIVERY_STATUSES).optional().describe('Delivery status'),
    event: z.string().min(1).max(64).optional().describe('Service event id'),
    target: z.string().min(1).max(64).optional().describe('Target (dataset connection) id'),
  }),
  success: { status: 200, schema: listEnvelope(Delivery), description: 'A page of deliveries' },
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'deliveries', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const rows = await listDeliveries(services.pool, caller.organizationId, page, query);
    return { status: 200, body: closePage(rows, page, services.secrets.cursorKey, (r) => ({ updatedAt: r.updated_key, id: r.id }), deliveryItem) };
  },
});
