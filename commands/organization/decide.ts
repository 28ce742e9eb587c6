// Organisation commands.
import { ApiError } from '../shared/errors.ts';
import type { OrganizationEvent, OrganizationState } from './organization.ts';

export interface CreateOrganization {
  organizationId: string;
  name: string;
  timezone: string;
  currency: string;
  phoneCountryCode: string;
  now: string;
}

export function decideCreateOrganization(state: OrganizationState, cmd: CreateOrganization): { events: OrganizationEvent[]; result: { id: string } } {
  if (state.exists) throw new ApiError('conflict', { organization_id: cmd.organizationId });
  const { organizationId, name, timezone, currency, phoneCountryCode, now } = cmd;
  return {
    events: [{ type: 'OrganizationCreated', data: { organizationId, name, timezone, currency, phoneCountryCode, createdAt: now } }],
    result: { id: organizationId },
  };
}
