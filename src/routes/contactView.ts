// Contact and lead rows as the API shows them, and the read of a contact right after a write.
import { ApiError } from '../../commands/shared/errors.ts';
import { getContact, type ContactRow } from '../../queries/contacts.ts';
import type { LeadRow } from '../../queries/leads.ts';
import type { Position } from '../eventstore/port.ts';
import type { Services } from '../services.ts';

/** Projectors a contact write can change, for read-your-writes. */
export const CONTACT_READ_MODELS = ['contacts'] as const;

export function toContact(row: ContactRow) {
  return {
    id: row.id, name: row.name, phone: row.phone, email: row.email, stage: row.stage, cycle: row.cycle, tags: row.tags,
    sms_optout: row.sms_optout, first_source: row.first_source, first_ad: row.first_ad, owner_id: row.owner_id,
    last_activity_at: row.last_activity_at?.toISOString() ?? null, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** Answers are personal data behind their own scope: absent (not empty) without leads:answers. */
export function toLead(row: LeadRow, withAnswers: boolean) {
  return {
    id: row.id, platform_lead_id: row.platform_lead_id, form_id: row.source_id ?? '', form_name: row.form_name,
    platform_form_id: row.platform_form_id, platform_page_id: row.platform_page_id, stage: row.stage, cycle: row.cycle,
    contact_id: row.contact_id, fetch_status: row.fetch_status, ad: row.ad, stages: row.stages,
    ...(withAnswers ? { answers: row.answers } : {}),
    created_at: row.submitted_at?.toISOString() ?? null, updated_at: row.updated_at.toISOString(),
  };
}

/** A live card of the organisation, or the spec's 404 / 409 contact_merged. */
export function liveRow(row: ContactRow | null, contactId: string): ContactRow {
  if (!row) throw new ApiError('not_found', { contact_id: contactId });
  if (row.merged_into) throw new ApiError('contact_merged', { merged_into: row.merged_into });
  return row;
}

/** The contact as the caller will read it next: after the read models passed the write's position. */
export async function contactAfter(services: Services, organizationId: string, contactId: string, position: Position | null) {
  if (position) await services.waiter.waitFor(CONTACT_READ_MODELS, position, 5000);
  const row = await getContact(services.pool, organizationId, contactId);
  if (!row) throw new ApiError('not_found', { contact_id: contactId });
  return toContact(row);
}
