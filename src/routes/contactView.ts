// Contact and lead rows as the API shows them, and the read of a contact right after a write.
// The read model keeps each resource as ready JSON text, so lists are answered by joining texts.
import type { z } from 'zod';
import { ApiError } from '../../commands/shared/errors.ts';
import type { ContactSchema } from '../../commands/contact/schemas.ts';
import { getContact, type ContactCardRow } from '../../queries/contacts.ts';
import type { JsonPage } from '../../queries/jsonPage.ts';
import type { Position } from '../eventstore/port.ts';
import { cursorAfter, type Page } from '../http/pagination.ts';
import type { Services } from '../services.ts';

/** Projectors a contact write can change, for read-your-writes. */
export const CONTACT_READ_MODELS = ['contacts'] as const;

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

/** The contact as the caller will read it next: after the read models passed the write's position. */
export async function contactAfter(services: Services, organizationId: string, contactId: string, position: Position | null): Promise<Contact> {
  if (position) await services.waiter.waitFor(CONTACT_READ_MODELS, position, 5000);
  const row = await getContact(services.pool, organizationId, contactId);
  if (!row) throw new ApiError('not_found', { contact_id: contactId });
  return JSON.parse(row.json) as Contact;
}
