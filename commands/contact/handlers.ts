// Contact command handlers: normalise and look up what the pure deciders need, then append atomically.
import { randomUUID } from 'node:crypto';
import type { AppendRequest, EventMetadata, Position } from '../../src/eventstore/port.ts';
import { handleCommand, inTurn, loadAggregate } from '../../src/eventstore/handle.ts';
import type { Services } from '../../src/services.ts';
import { contactsWithPhoneHash } from '../../queries/contacts.ts';
import { ApiError, validationError } from '../shared/errors.ts';
import { contactAggregate, contactStream, initialContactState, type ContactCreated, type NoteAdded, type NoteKind } from './contact.ts';
import { decideAddNote, decideChangeTags, decideCreateContact, decideSmsOptout, decideUpdateContact } from './decide.ts';
import { liveContact } from './fields.ts';
import { reservationStream, type ReservationKind } from './reservation.ts';
import { smsListAggregate, smsListStream } from './smsList.ts';
import { emailKey, inOwnerTurn, loadContact, organizationSettings, phoneIsListed, phoneKey, reservationHolder, reserveKeys, retrying, smsBlockOfNewPhone, survivorOf, takeOwnerTurn } from './writes.ts';

/**
 * An address as people write one, dot-separated parts on both sides of one @: no part empty, and none of the
 * characters that only wrap or separate addresses (<ada@example.com>, ada@example.com;, mailto:...), so the same
 * person written that way is not stored as a second address that matching cannot find.
 */
const EMAIL_PART = '[^\\s@<>()\\[\\]\\\\,;:".]+';
const EMAIL = new RegExp(`^${EMAIL_PART}(?:\\.${EMAIL_PART})*@${EMAIL_PART}(?:\\.${EMAIL_PART})*$`);

export interface Written {
  contactId: string;
  /** Null when nothing changed. */
  position: Position | null;
}

async function countryCode(services: Services, organizationId: string): Promise<string> {
  const settings = await organizationSettings(services.store, organizationId);
  if (!settings) throw new ApiError('not_found', { organization_id: organizationId });
  return settings.phoneCountryCode;
}

function checkedPhone(raw: string | undefined, cc: string) {
  if (raw === undefined) return undefined;
  const key = phoneKey(raw, cc);
  if (key === null) throw validationError('phone', 'a phone number with its country code (+48 601 234 567) or 9 national digits');
  return key;
}

function checkedEmail(raw: string | undefined) {
  if (raw === undefined) return undefined;
  const key = emailKey(raw);
  if (key.value !== '' && !EMAIL.test(key.value)) throw validationError('email', 'not an e-mail address');
  return key;
}

/** 409 contact_exists naming the card that holds the value now (the survivor of a merge). */
async function exists(services: Services, holder: string): Promise<never> {
  throw new ApiError('contact_exists', { contact_id: (await survivorOf(services.store, holder)).contactId });
}

export interface CreateContactInput {
  organizationId: string;
  name?: string;
  phone?: string;
  email?: string;
  tags?: string[];
}

/** `created` is the appended ContactCreated: the new card as it stands, whether or not the read model shows it yet. */
export async function createContact(services: Services, input: CreateContactInput, metadata: EventMetadata): Promise<Written & { position: Position; created: ContactCreated }> {
  const cc = await countryCode(services, input.organizationId);
  const phone = checkedPhone(input.phone, cc) ?? { value: '', hash: null };
  const email = checkedEmail(input.email) ?? { value: '', hash: null };
  const contactId = randomUUID();
  const { store } = services;
  let created: ContactCreated | undefined;
  const position = await inOwnerTurn(store, input.organizationId, () => retrying(async () => {
    const now = services.now().toISOString();
    const keys = [{ kind: 'phone' as const, hash: phone.hash }, { kind: 'email' as const, hash: email.hash }];
    const reserved = await reserveKeys(store, input.organizationId, contactId, keys, now);
    if (reserved.heldBy) return exists(services, reserved.heldBy);
    const owner = await takeOwnerTurn(store, input.organizationId, contactId);
    const { events } = decideCreateContact(initialContactState(), {
      contactId, organizationId: input.organizationId, name: input.name ?? '', phone: phone.value, email: email.value,
      phoneHash: phone.hash, emailHash: email.hash, tags: input.tags ?? [], firstSource: 'api', firstAd: null, ownerId: owner.ownerId,
      smsOptout: await phoneIsListed(store, input.organizationId, phone.hash), now,
    });
    const appended = await store.appendMany([{ stream: contactStream(contactId), events, expectedRevision: 'no_stream' }, ...reserved.requests, ...owner.requests], metadata);
    created = events[0].data as ContactCreated;
    return appended.position;
  }));
  return { contactId, position, created: created! };
}

export interface UpdateContactInput {
  organizationId: string;
  contactId: string;
  name?: string;
  phone?: string;
  email?: string;
  tags?: string[];
}

async function releaseKey(services: Services, kind: ReservationKind, organizationId: string, hash: string, contactId: string, now: string): Promise<AppendRequest | null> {
  const { state, revision } = await reservationHolder(services.store, kind, organizationId, hash);
  if (state.holder !== contactId) return null;
  return { stream: reservationStream(kind, organizationId, hash), events: [{ type: 'ContactKeyReleased', data: { organizationId, kind, hash, contactId, releasedAt: now } }], expectedRevision: revision };
}

export async function updateContact(services: Services, input: UpdateContactInput, metadata: EventMetadata): Promise<Written> {
  const cc = await countryCode(services, input.organizationId);
  const phone = checkedPhone(input.phone, cc);
  const email = checkedEmail(input.email);
  const { organizationId, contactId } = input;
  const position = await inTurn(services.store, contactStream(contactId), () => retrying(async () => {
    const now = services.now().toISOString();
    const { state, revision } = await loadContact(services.store, contactId);
    const { events } = decideUpdateContact(state, { contactId, organizationId, name: input.name, phone, email, tags: input.tags, now });
    if (events.length === 0) return null;
    const changes = events[0].type === 'ContactUpdated' ? events[0].data.changes : {};
    const sms = changes.phoneHash !== undefined && changes.phoneHash !== state.phoneHash
      ? await smsBlockOfNewPhone(services.store, organizationId, events.reduce(contactAggregate.evolve, state), now)
      : { events: [], requests: [] };
    const requests: AppendRequest[] = [{ stream: contactStream(contactId), events: [...events, ...sms.events], expectedRevision: revision }, ...sms.requests];
    for (const kind of ['phone', 'email'] as const) {
      const newHash = kind === 'phone' ? changes.phoneHash : changes.emailHash;
      const oldHash = kind === 'phone' ? state.phoneHash : state.emailHash;
      if (newHash === undefined || newHash === oldHash) continue;
      const reserved = await reserveKeys(services.store, organizationId, contactId, [{ kind, hash: newHash }], now, { ownMerged: true });
      if (reserved.heldBy) return exists(services, reserved.heldBy);
      requests.push(...reserved.requests);
      const released = oldHash ? await releaseKey(services, kind, organizationId, oldHash, contactId, now) : null;
      if (released) requests.push(released);
    }
    return (await services.store.appendMany(requests, metadata)).position;
  }));
  return { contactId, position };
}

export interface NoteInput {
  organizationId: string;
  contactId: string;
  kind: NoteKind;
  text: string;
  time?: string;
}

export async function addNote(services: Services, input: NoteInput, metadata: EventMetadata): Promise<{ note: NoteAdded; position: Position }> {
  const noteId = randomUUID();
  const handled = await handleCommand(services.store, contactStream(input.contactId), contactAggregate, (state) => {
    const now = services.now().toISOString();
    return decideAddNote(state, { noteId, contactId: input.contactId, organizationId: input.organizationId, kind: input.kind, text: input.text, time: input.time ?? now, now });
  }, metadata);
  return { note: handled.result, position: handled.append!.position };
}

export async function changeTags(services: Services, input: { organizationId: string; contactId: string; add: string[]; remove: string[] }, metadata: EventMetadata): Promise<Written> {
  const handled = await handleCommand(services.store, contactStream(input.contactId), contactAggregate, (state) =>
    decideChangeTags(state, { ...input, now: services.now().toISOString() }), metadata);
  return { contactId: input.contactId, position: handled.append?.position ?? null };
}

/**
 * The SMS block follows the phone: the card asked, every other card with that phone, and the
 * organisation's do-not-send list change in one append.
 */
export async function setSmsOptout(services: Services, input: { organizationId: string; contactId: string; smsOptout: boolean }, metadata: EventMetadata): Promise<Written> {
  const { organizationId, contactId, smsOptout } = input;
  const { store } = services;
  const position = await inTurn(store, contactStream(contactId), () => retrying(async () => {
    const now = services.now().toISOString();
    const own = await loadContact(store, contactId);
    const requests: AppendRequest[] = [];
    const mine = decideSmsOptout(own.state, { contactId, organizationId, smsOptout, now, follower: false });
    if (mine.events.length) requests.push({ stream: contactStream(contactId), events: mine.events, expectedRevision: own.revision });
    const phoneHash = liveContact(own.state, contactId, organizationId).phoneHash;
    if (phoneHash !== null) {
      for (const otherId of await contactsWithPhoneHash(services.pool, organizationId, phoneHash)) {
        if (otherId === contactId) continue;
        const other = await loadContact(store, otherId);
        const follow = decideSmsOptout(other.state, { contactId: otherId, organizationId, smsOptout, now, follower: true });
        if (follow.events.length) requests.push({ stream: contactStream(otherId), events: follow.events, expectedRevision: other.revision });
      }
      const list = await loadAggregate(store, smsListStream(organizationId, phoneHash), smsListAggregate);
      if (list.state.listed !== smsOptout) {
        requests.push({ stream: smsListStream(organizationId, phoneHash), events: [{ type: 'PhoneSmsOptoutSet', data: { organizationId, phoneHash, smsOptout, changedAt: now } }], expectedRevision: list.revision });
      }
    }
    return requests.length ? (await store.appendMany(requests, metadata)).position : null;
  }));
  return { contactId, position };
}
