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

/** An operator command for an organisation the store does not have changes nothing: 404 not_found. */
export async function requireOrganization(store: EventStore, organizationId: string): Promise<void> {
  const organization = await store.readStream(organizationStream(organizationId), { maxCount: 1 });
  if (organization.length === 0) throw new ApiError('not_found', { organization_id: organizationId }, 'unknown organisation');
}
