// GET /leads and GET /leads/{id}; form answers only for keys holding leads:answers.
import { z } from 'zod';
import { defineRoute } from '../http/route.ts';
import { atOrAfter, listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { ApiError } from '../../commands/shared/errors.ts';
import { LeadFilterShape, LeadParams, LeadSchema } from '../../commands/lead/schemas.ts';
import { getLeadJson, listLeads, type TimeBound } from '../../queries/leads.ts';
import { jsonListBody } from './contactView.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const OFFSET = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
/**
 * `from` admits its instant and later ones (a finer time rounded up to the millisecond, a wall-clock one too:
 * .000100 read as .000 admitted a lead of .000), `to` its instant and earlier.
 */
function toBound(value: string | undefined, end: 'from' | 'to'): TimeBound | undefined {
  if (value === undefined) return undefined;
  if (DAY.test(value)) return { day: value };
  if (!OFFSET.test(value)) return { local: end === 'from' ? atOrAfter(`${value}Z`).slice(0, -1) : value };
  return { instant: end === 'from' ? atOrAfter(value) : new Date(value).toISOString() };
}

export const listLeadsRoute = defineRoute({
  method: 'get',
  path: '/leads',
  scope: 'leads:read',
  summary: 'List instant-form leads, newest change first',
  tag: 'Leads',
  query: listQuery(LeadFilterShape),
  success: { status: 200, schema: listEnvelope(LeadSchema), description: 'A page of leads' },
  afterWrites: '/contacts', // a lead changes with its contact's stage
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'leads', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const { form, campaign, adset, ad, contact, stage } = query;
    const withAnswers = caller.has('leads:answers');
    const found = await listLeads(services.pool, caller.organizationId, caller.organization.timezone, page, {
      form, campaign, adset, ad, contact, stage, from: toBound(query.from, 'from'), to: toBound(query.to, 'to'),
    }, withAnswers);
    return { status: 200, rawBody: jsonListBody(found, page, services.secrets.cursorKey) };
  },
});

export const getLeadRoute = defineRoute({
  method: 'get',
  path: '/leads/:id',
  scope: 'leads:read',
  summary: 'One lead with its stage history',
  tag: 'Leads',
  params: LeadParams,
  query: z.object({}).strict(),
  success: { status: 200, schema: LeadSchema, description: 'The lead' },
  errors: ['not_found'],
  handler: async ({ params, caller, services }) => {
    const json = await getLeadJson(services.pool, caller.organizationId, params.id, caller.has('leads:answers'));
    if (json === null) throw new ApiError('not_found', { lead_id: params.id });
    return { status: 200, rawBody: json };
  },
});
