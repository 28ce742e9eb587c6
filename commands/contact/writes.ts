// I/O helpers shared by the contact and lead handlers: retry on concurrent writes, the organisation's
// settings, normalised keys, reservations, round-robin turns and merge chains, all read from the store.
import pRetry from 'p-retry';
import type { AppendRequest, EventStore } from '../../src/eventstore/port.ts';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { inTurn, loadAggregate } from '../../src/eventstore/handle.ts';
import type { Services } from '../../src/services.ts';
import { hashEmail, hashPhone, normalizeEmail, toE164 } from '../../src/platform/normalize.ts';
import { organizationStream, type OrganizationEvent } from '../organization/organization.ts';
import { ownersAggregate, ownersStream, nextOwner } from '../owners/owners.ts';
import { contactAggregate, contactStream, type ContactEvent, type ContactState } from './contact.ts';
import { reservationAggregate, reservationStream, type ReservationKind } from './reservation.ts';
import { smsListAggregate, smsListStream } from './smsList.ts';

/** Run `work` again (it reloads what it needs) when a concurrent writer got there first. */
export function retrying<T>(work: () => Promise<T>): Promise<T> {
  return pRetry(work, {
    retries: 10,
    minTimeout: 2,
    maxTimeout: 40,
    randomize: true,
    // 40P01: two appends met in a deadlock; PostgreSQL rolled one back, which is safe to run again.
    shouldRetry: ({ error }) => error instanceof WrongExpectedVersionError || (error as { code?: string }).code === '40P01',
  });
}

export interface OrganizationSettings {
  timezone: string;
  currency: string;
  phoneCountryCode: string;
}

/** From the organisation's own stream, so a contact made a moment after the organisation still finds it. */
export async function organizationSettings(store: EventStore, organizationId: string): Promise<OrganizationSettings | null> {
  const [first] = await store.readStream(organizationStream(organizationId), { maxCount: 1 });
  if (!first) return null;
  const d = (first as unknown as OrganizationEvent).data;
  return { timezone: d.timezone, currency: d.currency, phoneCountryCode: d.phoneCountryCode };
}

export interface ContactKeys {
  phone: string;
  email: string;
  phoneHash: string | null;
  emailHash: string | null;
}

/** The stored forms: phone in E.164 (null when it is not a phone we accept), e-mail trimmed and lower-cased. */
export function phoneKey(raw: string, countryCode: string): { value: string; hash: string | null } | null {
  if (raw.trim() === '') return { value: '', hash: null };
  const e164 = toE164(raw, countryCode);
  return e164 === null ? null : { value: e164, hash: hashPhone(e164, countryCode) };
}

export function emailKey(raw: string): { value: string; hash: string | null } {
  const email = normalizeEmail(raw);
  return email === null ? { value: '', hash: null } : { value: email, hash: hashEmail(email) };
}

export async function reservationHolder(store: EventStore, kind: ReservationKind, organizationId: string, hash: string) {
  return loadAggregate(store, reservationStream(kind, organizationId, hash), reservationAggregate);
}

/**
 * Reserve the contact's keys: the requests to append, or the contact that holds one of them already.
 * For an existing card (`ownMerged`), a value held by a card merged into it is its own: it takes the
 * reservation over (a new card has nothing merged into it, so creation skips that read).
 */
export async function reserveKeys(
  store: EventStore,
  organizationId: string,
  contactId: string,
  keys: { kind: ReservationKind; hash: string | null }[],
  now: string,
  options: { ownMerged?: boolean } = {},
): Promise<{ requests: AppendRequest[]; heldBy: string | null }> {
  const requests: AppendRequest[] = [];
  for (const { kind, hash } of keys) {
    if (hash === null) continue;
    const { state, revision } = await reservationHolder(store, kind, organizationId, hash);
    if (state.holder === contactId) continue;
    if (state.holder !== null && !(options.ownMerged && (await survivorOf(store, state.holder)).contactId === contactId)) {
      return { requests: [], heldBy: state.holder };
    }
    requests.push({
      stream: reservationStream(kind, organizationId, hash),
      events: [{ type: 'ContactKeyReserved', data: { organizationId, kind, hash, contactId, reservedAt: now } }],
      expectedRevision: revision,
    });
  }
  // One lock order for every writer, so two appends never wait on each other in a circle.
  requests.sort((a, b) => a.stream.localeCompare(b.stream));
  return { requests, heldBy: null };
}

/**
 * With round robin on, every new card of the organisation appends to its one owners stream: creates take
 * that stream in turn (forty at once otherwise ran out of retries and answered 500). Off, they run free.
 */
export async function inOwnerTurn<T>(store: EventStore, organizationId: string, work: () => Promise<T>): Promise<T> {
  const stream = ownersStream(organizationId);
  const { state } = await loadAggregate(store, stream, ownersAggregate);
  return nextOwner(state) ? inTurn(store, stream, work) : work();
}

/** The next round-robin owner and the append that takes the turn, or nothing when round robin is off. */
export async function takeOwnerTurn(store: EventStore, organizationId: string, contactId: string): Promise<{ ownerId: string | null; requests: AppendRequest[] }> {
  const stream = ownersStream(organizationId);
  const { state, revision } = await loadAggregate(store, stream, ownersAggregate);
  const next = nextOwner(state);
  if (!next) return { ownerId: null, requests: [] };
  return {
    ownerId: next.ownerId,
    requests: [{ stream, events: [{ type: 'OwnerTurnTaken', data: { organizationId, contactId, ownerId: next.ownerId, turn: next.turn } }], expectedRevision: revision }],
  };
}

export async function phoneIsListed(store: EventStore, organizationId: string, phoneHash: string | null): Promise<boolean> {
  if (phoneHash === null) return false;
  return (await loadAggregate(store, smsListStream(organizationId, phoneHash), smsListAggregate)).state.listed;
}

/**
 * The SMS block follows a phone a card takes (PATCH, or a lead filling a missing phone), as it does for a
 * card created with it: a listed phone blocks the card, and a blocked card's new phone joins the list, so
 * the card and the do-not-send list stay in step. `after` is the card with the new phone.
 */
export async function smsBlockOfNewPhone(store: EventStore, organizationId: string, after: ContactState, now: string): Promise<{ events: ContactEvent[]; requests: AppendRequest[] }> {
  const none = { events: [], requests: [] };
  if (after.phoneHash === null) return none;
  const list = await loadAggregate(store, smsListStream(organizationId, after.phoneHash), smsListAggregate);
  if (list.state.listed === after.smsOptout) return none;
  if (list.state.listed) {
    const data = { contactId: after.contactId, organizationId, smsOptout: true, phoneHash: after.phoneHash, changedAt: now };
    return { events: [{ type: 'ContactSmsOptoutChanged', data }], requests: [] };
  }
  const data = { organizationId, phoneHash: after.phoneHash, smsOptout: true, changedAt: now };
  return { events: [], requests: [{ stream: smsListStream(organizationId, after.phoneHash), events: [{ type: 'PhoneSmsOptoutSet', data }], expectedRevision: list.revision }] };
}

/**
 * The cards' turn across processes: this process's writers of the cards queue first (inTurn), then the turn
 * is taken in PostgreSQL (src/db/streamLocks.ts), so the service, other API processes and the operator CLI take
 * it one at a time. A stage change holds it from load to append because it queues conversions before it
 * appends (stage.ts); the writers that could make that append miss or move other leads (a lead joining the
 * card, a merge) take it too. Cards in one order, so two holders of several never wait on each other in a circle.
 */
export function inCardTurn<T>(services: Pick<Services, 'store' | 'streamLocks'>, contactIds: string[], work: () => Promise<T>): Promise<T> {
  const streams = [...new Set(contactIds.map(contactStream))].sort();
  const held = () => services.streamLocks.hold(streams, work);
  return streams.reduceRight<() => Promise<T>>((inner, stream) => () => inTurn(services.store, stream, inner), held)();
}

export const loadContact = (store: EventStore, contactId: string) => loadAggregate(store, contactStream(contactId), contactAggregate);

/**
 * The card a merged card now lives on (itself when it is not merged). A merge needs both cards live, so a chain
 * never loops and may be as long as the merges made along it (a 20-hop bound answered 500 past 20 merges).
 */
export async function survivorOf(store: EventStore, contactId: string): Promise<{ contactId: string; state: ContactState; revision: bigint | 'no_stream' }> {
  const seen = new Set<string>();
  for (let id = contactId; !seen.has(id); ) {
    seen.add(id);
    const { state, revision } = await loadContact(store, id);
    if (state.mergedInto === null) return { contactId: id, state, revision };
    id = state.mergedInto;
  }
  throw new Error(`contact ${contactId}: merge chain loops`);
}
