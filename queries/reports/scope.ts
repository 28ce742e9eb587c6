// The organisation a report is for: its zone and currency, and "today" there at the report's moment.
import type { Queryable } from '../../src/db/pool.ts';
import { getOrganization } from '../access.ts';
import { localDays } from '../../projections/reporting_shared/days.ts';
import type { ReportScope } from './campaign.ts';

export async function reportScope(db: Queryable, organizationId: string, asOf: Date): Promise<ReportScope | null> {
  const organization = await getOrganization(db, organizationId);
  if (!organization) return null;
  return {
    organizationId,
    timezone: organization.timezone,
    currency: organization.currency,
    today: localDays(organization.timezone)(asOf.toISOString()),
    asOf,
  };
}
