// GET /contacts, POST /contacts, GET /contacts/{id}, PATCH /contacts/{id}.
import { z } from 'zod';
import { cleanTags } from '../../commands/contact/fields.ts';
import { defineRoute, type Caller } from '../http/route.ts';
import { listEnvelope, listQuery, openPage } from '../http/pagination.ts';
import { getContact, listContacts } from '../../queries/contacts.ts';
import { ContactParams, ContactSchema, CreateContactBody, PatchContactBody, StageSchema, TagText } from '../../commands/contact/schemas.ts';
import { createContact, updateContact } from '../../commands/contact/handlers.ts';
import { emailKey, phoneKey } from '../../commands/contact/writes.ts';
import { hashPhone } from '../platform/normalize.ts';
import { contactAfter, createdContact, jsonListBody, liveRow } from './contactView.ts';

const id = z.string().min(1).max(100);

/**
 * The e-mail and phone filters match by hash, after the same normalisation as stored values. A '+' written
 * into the query string unencoded arrives as a space (as in updated_since): an e-mail holds no space, and a
 * phone that is none as written but one after a leading '+' had it (a+b@example.com, +12025550143).
 */
function hashedFilters(caller: Caller, query: { email?: string; phone?: string }) {
  const out: { emailHash?: string; phoneHash?: string } = {};
  if (query.email !== undefined) out.emailHash = emailKey(query.email.trim().replace(/ /g, '+')).hash ?? '';
  if (query.phone !== undefined) {
    const cc = caller.organization.phoneCountryCode;
    const key = phoneKey(query.phone, cc) ?? phoneKey(query.phone.replace(/^ (?=\d)/, '+'), cc);
    out.phoneHash = key?.hash ?? hashPhone(query.phone, cc) ?? '';
  }
  return out;
}

export const listContactsRoute = defineRoute({
  method: 'get',
  path: '/contacts',
  scope: 'contacts:read',
  summary: 'List contacts (merged cards left out), newest change first',
  tag: 'Contacts',
  query: listQuery({
    stage: StageSchema.optional(),
    tag: TagText.optional().describe('Contacts carrying this tag: 1-50 characters after trimming, as tags are kept'),
    email: z.string().min(1).max(254).optional().describe('Exact e-mail, matched by hash'),
    phone: z.string().min(1).max(40).optional().describe('Exact phone, matched by hash'),
    campaign: id.optional().describe('People with a lead from this platform campaign'),
    adset: id.optional().describe('People with a lead from this ad set'),
    ad: id.optional().describe('People with a lead from this ad'),
  }),
  success: { status: 200, schema: listEnvelope(ContactSchema), description: 'A page of contacts' },
  afterWrites: '/contacts',
  errors: ['invalid_cursor'],
  handler: async ({ query, caller, services }) => {
    const page = openPage(query, { list: 'contacts', organizationId: caller.organizationId }, services.secrets.cursorKey);
    const { stage, campaign, adset, ad } = query;
    // Tags are stored trimmed, so the filter is read the same way and meets their rule: 1-50 characters after
    // trimming (a blank one found nothing, and one of 50 with a space around it was refused).
    const tag = query.tag === undefined ? undefined : cleanTags([query.tag], 'tag')[0];
    const hashed = hashedFilters(caller, query);
    const found = await listContacts(services.pool, caller.organizationId, page, { stage, tag, campaign, adset, ad, ...hashed });
    return { status: 200, rawBody: jsonListBody(found, page, services.secrets.cursorKey) };
  },
});

export const createContactRoute = defineRoute({
  method: 'post',
  path: '/contacts',
  scope: 'contacts:write',
  summary: 'Create a contact; 409 contact_exists when its phone or e-mail belongs to another contact',
  tag: 'Contacts',
  body: CreateContactBody,
  success: { status: 201, schema: ContactSchema, description: 'The new contact' },
  errors: ['contact_exists'],
  handler: async ({ body, caller, services, metadata }) => {
    const { contactId, position, created } = await createContact(services, { organizationId: caller.organizationId, ...body }, metadata);
    return { status: 201, body: await contactAfter(services, caller.organizationId, contactId, position, createdContact(created)) };
  },
});

export const getContactRoute = defineRoute({
  method: 'get',
  path: '/contacts/:id',
  scope: 'contacts:read',
  summary: 'One contact; a merged card answers 409 contact_merged with details.merged_into',
  tag: 'Contacts',
  params: ContactParams,
  query: z.object({}).strict(),
  success: { status: 200, schema: ContactSchema, description: 'The contact' },
  errors: ['not_found', 'contact_merged'],
  handler: async ({ params, caller, services }) => {
    const row = liveRow(await getContact(services.pool, caller.organizationId, params.id), params.id);
    return { status: 200, rawBody: row.json };
  },
});

export const patchContactRoute = defineRoute({
  method: 'patch',
  path: '/contacts/:id',
  scope: 'contacts:write',
  summary: 'Change name, phone, e-mail or tags (every change is a history line; a phone or an e-mail must remain)',
  tag: 'Contacts',
  params: ContactParams,
  body: PatchContactBody,
  success: { status: 200, schema: ContactSchema, description: 'The updated contact' },
  errors: ['not_found', 'contact_merged', 'contact_exists'],
  handler: async ({ params, body, caller, services, metadata }) => {
    const { position } = await updateContact(services, { organizationId: caller.organizationId, contactId: params.id, ...body }, metadata);
    return { status: 200, body: await contactAfter(services, caller.organizationId, params.id, position) };
  },
});
