// Contact commands: create, update, notes, tags, SMS block. Pure: ids, clock and looked-up facts arrive in the command.
import { ApiError, validationError } from '../shared/errors.ts';
import type { AdSource } from '../lead/lead.ts';
import type { ContactCreated, ContactEvent, ContactUpdated, NoteAdded, ContactState, NoteKind } from './contact.ts';
import { checkTagCount, cleanTags, liveContact, requireReachable } from './fields.ts';

type Decision<R = null> = { events: ContactEvent[]; result: R };

export interface CreateContact {
  contactId: string;
  organizationId: string;
  name: string;
  phone: string;
  email: string;
  phoneHash: string | null;
  emailHash: string | null;
  tags: string[];
  firstSource: string;
  firstAd: AdSource | null;
  ownerId: string | null;
  smsOptout: boolean;
  now: string;
}

export function decideCreateContact(state: ContactState, cmd: CreateContact): Decision {
  if (state.exists) throw new ApiError('conflict', { contact_id: cmd.contactId });
  const tags = cleanTags(cmd.tags);
  checkTagCount(tags);
  const data: ContactCreated = {
    contactId: cmd.contactId, organizationId: cmd.organizationId, name: cmd.name.trim(), phone: cmd.phone, email: cmd.email,
    phoneHash: cmd.phoneHash, emailHash: cmd.emailHash, tags, stage: 'new', cycle: 1, firstSource: cmd.firstSource,
    firstAd: cmd.firstAd, ownerId: cmd.ownerId, smsOptout: cmd.smsOptout, createdAt: cmd.now,
  };
  return { events: [{ type: 'ContactCreated', data }], result: null };
}

export interface UpdateContact {
  contactId: string;
  organizationId: string;
  name?: string;
  /** '' removes; otherwise E.164 with its hash. */
  phone?: { value: string; hash: string | null };
  email?: { value: string; hash: string | null };
  tags?: string[];
  now: string;
}

/** What a PATCH really changes: only fields that differ, each with one history line. */
export function decideUpdateContact(state: ContactState, cmd: UpdateContact): Decision {
  liveContact(state, cmd.contactId, cmd.organizationId);
  const changes: ContactUpdated['changes'] = {};
  const history: string[] = [];
  if (cmd.name !== undefined && cmd.name.trim() !== state.name) {
    changes.name = cmd.name.trim();
    history.push('name changed');
  }
  for (const field of ['phone', 'email'] as const) {
    const given = cmd[field];
    if (given === undefined || given.value === state[field]) continue;
    if (field === 'phone') Object.assign(changes, { phone: given.value, phoneHash: given.hash });
    else Object.assign(changes, { email: given.value, emailHash: given.hash });
    const label = field === 'phone' ? 'phone' : 'e-mail';
    history.push(given.value === '' ? `${label} removed` : state[field] === '' ? `${label} added` : `${label} changed`);
  }
  if (cmd.tags !== undefined) {
    const tags = cleanTags(cmd.tags);
    checkTagCount(tags);
    const added = tags.filter((t) => !state.tags.includes(t));
    const removed = state.tags.filter((t) => !tags.includes(t));
    if (added.length || removed.length || tags.join('\u0000') !== state.tags.join('\u0000')) {
      changes.tags = tags;
      history.push(`tags set to [${tags.join(', ')}]`);
    }
  }
  // "Must remain": a PATCH may not take away the last of them; a card a lead made without either (its form
  // asked for neither) can still be renamed or tagged.
  if (state.phone !== '' || state.email !== '') requireReachable({ phone: changes.phone ?? state.phone, email: changes.email ?? state.email });
  if (history.length === 0) return { events: [], result: null };
  return {
    events: [{ type: 'ContactUpdated', data: { contactId: cmd.contactId, organizationId: cmd.organizationId, changes, history, updatedAt: cmd.now } }],
    result: null,
  };
}

export interface AddNote {
  noteId: string;
  contactId: string;
  organizationId: string;
  kind: NoteKind;
  text: string;
  /** ISO; the handler defaults it to now. */
  time: string;
  now: string;
}

/** Clocks differ a little between a caller and the service; a note a few seconds ahead is still "now". */
export const NOTE_CLOCK_SKEW_MS = 5000;

export function decideAddNote(state: ContactState, cmd: AddNote): Decision<NoteAdded> {
  liveContact(state, cmd.contactId, cmd.organizationId);
  if (Date.parse(cmd.time) > Date.parse(cmd.now) + NOTE_CLOCK_SKEW_MS) throw validationError('time', 'may not be in the future');
  const { noteId, contactId, organizationId, kind, text, time, now } = cmd;
  const data: NoteAdded = { noteId, contactId, organizationId, kind, text, time: new Date(time).toISOString(), addedAt: now };
  return { events: [{ type: 'NoteAdded', data }], result: data };
}

export interface ChangeTags {
  contactId: string;
  organizationId: string;
  add: string[];
  remove: string[];
  now: string;
}

export function decideChangeTags(state: ContactState, cmd: ChangeTags): Decision {
  liveContact(state, cmd.contactId, cmd.organizationId);
  const add = cleanTags(cmd.add, 'add');
  const remove = cleanTags(cmd.remove, 'remove');
  if (add.length === 0 && remove.length === 0) throw validationError('add', 'add or remove must name at least one tag');
  const tags = [...state.tags.filter((t) => !remove.includes(t)), ...add.filter((t) => !state.tags.includes(t) && !remove.includes(t))];
  const added = tags.filter((t) => !state.tags.includes(t));
  const removed = state.tags.filter((t) => !tags.includes(t));
  // Only adding is held to the limit: a card merged before merges kept it may hold more, and must be able to shed them.
  if (added.length > 0) checkTagCount(tags, 'add');
  if (added.length === 0 && removed.length === 0) return { events: [], result: null };
  return { events: [{ type: 'ContactTagsChanged', data: { contactId: cmd.contactId, organizationId: cmd.organizationId, added, removed, tags, changedAt: cmd.now } }], result: null };
}

/** One contact following the SMS block of its phone (the card asked, or another card with the same phone). */
export function decideSmsOptout(state: ContactState, cmd: { contactId: string; organizationId: string; smsOptout: boolean; now: string; follower: boolean }): Decision {
  if (cmd.follower) {
    if (!state.exists || state.smsOptout === cmd.smsOptout) return { events: [], result: null };
  } else {
    liveContact(state, cmd.contactId, cmd.organizationId);
    if (state.smsOptout === cmd.smsOptout) return { events: [], result: null };
  }
  return {
    events: [{ type: 'ContactSmsOptoutChanged', data: { contactId: cmd.contactId, organizationId: cmd.organizationId, smsOptout: cmd.smsOptout, phoneHash: state.phoneHash, changedAt: cmd.now } }],
    result: null,
  };
}
