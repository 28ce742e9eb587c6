// POST /contacts/{id}/stage, /notes, /tags and /sms-optout.
import { defineRoute, type Caller } from '../http/route.ts';
import { ContactParams, ContactSchema, NoteBody, NoteSchema, SmsOptoutBody, StageBody, StageResultSchema, TagsBody } from '../../commands/contact/schemas.ts';
import { addNote, changeTags, setSmsOptout } from '../../commands/contact/handlers.ts';
import { changeStage } from '../../commands/contact/stage.ts';
import type { Position } from '../eventstore/port.ts';
import type { Services } from '../services.ts';
import { CONTACT_READ_MODELS, STAGE_READ_MODELS, contactAfter, type Contact } from './contactView.ts';

const MERGED_OR_MISSING = ['not_found', 'contact_merged'] as const;

/** The card a request acts on: the path's id in the caller's organisation. */
interface Target {
  organizationId: string;
  contactId: string;
}

/**
 * Run one contact command on the path's card (the command answers 404 or 409 contact_merged) and read
 * the contact back once the read models show the command's events, as the caller will read it next.
 */
async function actOnContact<T extends { position: Position | null }>(
  ctx: { params: { id: string }; caller: Caller; services: Services },
  command: (target: Target) => Promise<T>,
  readModels: readonly string[] = CONTACT_READ_MODELS,
): Promise<T & { contact: Contact }> {
  const target = { organizationId: ctx.caller.organizationId, contactId: ctx.params.id };
  const outcome = await command(target);
  return { ...outcome, contact: await contactAfter(ctx.services, target.organizationId, target.contactId, outcome.position, undefined, readModels) };
}

export const contactStageRoute = defineRoute({
  method: 'post',
  path: '/contacts/:id/stage',
  scope: 'contacts:write',
  summary: 'Move the contact and every open lead of its cycle to a stage; queues conversions for leads with an active flow',
  tag: 'Contacts',
  params: ContactParams,
  body: StageBody,
  success: { status: 200, schema: StageResultSchema, description: 'The contact and what was queued' },
  errors: [...MERGED_OR_MISSING, 'stage_conflict'],
  handler: async (ctx) => {
    const { body, services, metadata } = ctx;
    // The reports too: a caller that moves a person to sold reads the sale in the campaign report next.
    const outcome = await actOnContact(ctx, (target) =>
      changeStage(services, { ...target, stage: body.stage, value: body.value ?? null, currency: body.currency || null }, metadata), STAGE_READ_MODELS);
    return {
      status: 200,
      body: { contact: outcome.contact, platform_events_queued: outcome.platformEventsQueued, leads_without_send: outcome.leadsWithoutSend },
    };
  },
});

export const contactNoteRoute = defineRoute({
  method: 'post',
  path: '/contacts/:id/notes',
  scope: 'contacts:write',
  summary: 'Add a note, call or meeting to the contact\'s history',
  tag: 'Contacts',
  params: ContactParams,
  body: NoteBody,
  success: { status: 201, schema: NoteSchema, description: 'The history entry' },
  errors: [...MERGED_OR_MISSING],
  handler: async ({ params, body, caller, services, metadata }) => {
    const { note, position } = await addNote(services, { organizationId: caller.organizationId, contactId: params.id, ...body }, metadata);
    await services.waiter.waitFor(CONTACT_READ_MODELS, position, 5000);
    return { status: 201, body: { id: note.noteId, contact_id: note.contactId, kind: note.kind, text: note.text, time: note.time } };
  },
});

export const contactTagsRoute = defineRoute({
  method: 'post',
  path: '/contacts/:id/tags',
  scope: 'contacts:write',
  summary: 'Add and remove tags without sending the whole list: { add: [...], remove: [...] }',
  tag: 'Contacts',
  params: ContactParams,
  body: TagsBody,
  success: { status: 200, schema: ContactSchema, description: 'The updated contact' },
  errors: [...MERGED_OR_MISSING],
  handler: async (ctx) => {
    const { body, services, metadata } = ctx;
    const { contact } = await actOnContact(ctx, (target) => changeTags(services, { ...target, add: body.add, remove: body.remove }, metadata));
    return { status: 200, body: contact };
  },
});

export const contactSmsOptoutRoute = defineRoute({
  method: 'post',
  path: '/contacts/:id/sms-optout',
  scope: 'contacts:write',
  summary: 'Block or allow SMS to the contact\'s phone, for every contact sharing it; keeps the do-not-send list in step',
  tag: 'Contacts',
  params: ContactParams,
  body: SmsOptoutBody,
  success: { status: 200, schema: ContactSchema, description: 'The updated contact' },
  errors: [...MERGED_OR_MISSING],
  handler: async (ctx) => {
    const { body, services, metadata } = ctx;
    const { contact } = await actOnContact(ctx, (target) => setSmsOptout(services, { ...target, smsOptout: body.sms_optout }, metadata));
    return { status: 200, body: contact };
  },
});
