// Contact and lead rows as the API shows them, and the read of a contact right after a write.
// The read model keeps each resource as ready JSON text, so lists are answered by joining texts.
import type { z } from 'zod';
import { ApiError } from '../../commands/shared/errors.ts';
import type { ContactSchema } from '../../commands/contact/schemas.ts';
import type { ContactCreated } from '../../commands/contact/contact.ts';
import { getContact, type ContactCardRow } from '../../queries/contacts.ts';
import type { JsonPage } from '../../queries/jsonPage.ts';
import type { Position } from '../eventstore/port.ts';
import { cursorAfter, type Page } from '../http/pagination.ts';
import type { Services } from '../services.ts';

/** Projectors a contact write can change, for read-your-writes. */
export const CONTACT_READ_MODELS = ['contacts'] as const;
/** A stage change also moves the leads the campaign and creative reports count (qualified, rejected, sales, revenue). */
export const STAGE_READ_MODELS = [...CONTACT_READ_MODELS, 'reporting_leads'] as const;

export type Contact = z.infer<typeof ContactSchema>;

/** The list envelope { data, next_cursor, has_more } as JSON text in three parts, around the page's joined items. */
export function jsonListBody(found: JsonPage, page: Page, key: Buffer): readonly string[] {
  const cursor = JSON.stringify(found.last ? cursorAfter(found.last, page, key) : null);
  return ['{"data":[', found.items, `],"next_cursor":${cursor},"has_more":${found.hasMore}}`];
}

/** A live card of the organisation, or the spec's 404 / 409 contact_merged. */
export function liveRow(row: ContactCardRow | null, contactId: string): ContactCardRow {
  if (!row) throw new ApiError('not_found', { contact_id: contactId });
  if (row.merged_into) throw new ApiError('contact_merged', { merged_into: row.merged_into });
  return row;
}

/** A new card as the read model shows it once it has applied its ContactCreated (same fields, same order). */
export function createdContact(d: ContactCreated): Contact {
  return {
    id: d.contactId, name: d.name, phone: d.phone, email: d.email, stage: d.stage, cycle: d.cycle, tags: d.tags, sms_optout: d.smsOptout,
    first_source: d.firstSource, first_ad: d.firstAd, owner_id: d.ownerId, last_activity_at: null, created_at: d.createdAt, updated_at: d.createdAt,
  };
}

/**
 * The contact as the caller will read it next: after the read models passed the write's position. A create passes
 * the card it made: when the read model has not caught up within the bound (its projector late, or run by no
 * process: WORKERS=off), that is the answer, never a 404 for what was just created.
 */
export async function contactAfter(
  services: Services, organizationId: string, contactId: string, position: Position | null, created?: Contact,
  readModels: readonly string[] = CONTACT_READ_MODELS,
): Promise<Contact> {
  if (position) await services.waiter.waitFor(readModels, position, 5000);
  const row = await getContact(services.pool, organizationId, contactId);
  if (row) return JSON.parse(row.json) as Contact;
  if (created) return created;
  throw new ApiError('not_found', { contact_id: contactId });
}
