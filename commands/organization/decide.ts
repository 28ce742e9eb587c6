// Organisation commands.
import { ApiError, validationError } from '../shared/errors.ts';
import { isName, MAX_NAME_CHARS } from '../shared/text.ts';
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
  if (!isName(cmd.name)) throw validationError('name', `1-${MAX_NAME_CHARS} characters`);
  const { organizationId, name, timezone, currency, phoneCountryCode, now } = cmd;
  return {
    events: [{ type: 'OrganizationCreated', data: { organizationId, name, timezone, currency, phoneCountryCode, createdAt: now } }],
    result: { id: organizationId },
  };
}
