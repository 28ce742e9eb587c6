// Read model of contacts and leads: one projector for contacts, notes, the do-not-send list, leads, connected
// pages and the lead-fetch queue, so a write waits for one checkpoint and the engine holds one connection.
import { migrationsIn } from '../../src/db/migrate.ts';
import type { Projector } from '../../src/projections/projector.ts';
import { contactHandlers } from './contactHandlers.ts';
import { leadHandlers } from './leadHandlers.ts';
import { intakeHandlers } from './intakeHandlers.ts';
import { applyAll, handledBy } from './handlers.ts';

// Leads before contacts: a lead row exists before the contact events that move it.
const maps = [leadHandlers, contactHandlers, intakeHandlers];

export const contactsProjector: Projector = {
  name: 'contacts',
  tables: ['contacts', 'contact_list_keys', 'contact_notes', 'sms_do_not_send', 'leads', 'platform_pages', 'lead_fetches'],
  migrations: migrationsIn(import.meta.dirname),
  handles: handledBy(maps),
  apply: applyAll(maps),
};
