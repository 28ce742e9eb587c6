// Organisation command handlers.
import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventStore } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { organizationAggregate, organizationStream } from './organization.ts';
import { decideCreateOrganization } from './decide.ts';
import { ApiError } from '../shared/errors.ts';

export interface OrganizationInput {
  name: string;
  timezone?: string;
  currency?: string;
  phoneCountryCode?: string;
}

export async function createOrganization(store: EventStore, input: OrganizationInput, now: Date, actor = 'operator') {
  const organizationId = randomUUID();
  const metadata: EventMetadata = { organizationId, actor };
  const handled = await handleCommand(store, organizationStream(organizationId), organizationAggregate, (state) =>
    decideCreateOrganization(state, {
      organizationId,
      name: input.name,
      timezone: input.timezone ?? 'Europe/Warsaw',
      currency: input.currency ?? 'PLN',
      phoneCountryCode: input.phoneCountryCode ?? '48',
      now: now.toISOString(),
    }), metadata);
  return { id: organizationId, position: handled.append!.position };
}

/** Whether the store has this organisation (its stream's first event). */
export async function organizationExists(store: EventStore, organizationId: string): Promise<boolean> {
  return (await store.readStream(organizationStream(organizationId), { maxCount: 1 })).length > 0;
}

/** An operator command for an organisation the store does not have changes nothing: 404 not_found. */
export async function requireOrganization(store: EventStore, organizationId: string): Promise<void> {
  if (!(await organizationExists(store, organizationId))) throw new ApiError('not_found', { organization_id: organizationId }, 'unknown organisation');
}
