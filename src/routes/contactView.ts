// Contact and lead rows as the API shows them, and the read of a contact right after a write.
// The read model keeps each resource as ready JSON text, so lists are answered by joining texts.
import type { z } from 'zod';
import { ApiError } from '../../commands/shared/errors.ts';
import type { ContactSchema } from '../../commands/contact/schemas.ts';
import { getContact, type ContactCardRow } from '../../queries/contacts.ts';
import type { LeadJsonRow } from '../../queries/leads.ts';
import type { Position } from '../eventstore/port.ts';
import { closePage, type Page } from '../http/pagination.ts';
import type { Services } from '../services.ts';

/** Projectors a contact write can change, for read-your-writes. */
export const CONTACT_READ_MODELS = ['contacts'] as const;

export type Contact = z.infer<typeof ContactSchema>;

/** Answers are personal data behind their own scope: absent (not empty) without leads:answers. */
export function leadJson(row: LeadJsonRow, withAnswers: boolean): string {
  if (!withAnswers) return row.json;
  if (row.answers === undefined) throw new Error('lead answers were not read');
  // The stored text is one object ending in '}': the answers join it as its last field.
  return `${row.json.slice(0, -1)},"answers":${row.answers}}`;
}

/**
 * The list envelope { data, next_cursor, has_more } as JSON text, from rows that each carry their item
 * as JSON text. Only the last row of a full page is parsed, for its position in the cursor.
 */
export function jsonListBody<Row extends { id: string; json: string }>(rows: Row[], page: Page, key: Buffer, item: (row: Row) => string): string {
  const position = (row: Row) => ({ updatedAt: (JSON.parse(row.json) as { updated_at: string }).updated_at, id: row.id });
  const { data, next_cursor, has_more } = closePage(rows, page, key, position, item);
  return `{"data":[${data.join(',')}],"next_cursor":${JSON.stringify(next_cursor)},"has_more":${has_more}}`;
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
