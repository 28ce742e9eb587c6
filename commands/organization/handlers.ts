// Organisation command handlers.
import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventStore } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { organizationAggregate, organizationStream } from './organization.ts';
import { decideCreateOrganization } from './decide.ts';

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
