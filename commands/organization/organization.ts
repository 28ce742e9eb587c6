// Organisation aggregate: owns all data; its settings (time zone, currency, phone country) shape reports and contacts.
export const organizationStream = (id: string) => `organization-${id}`;

export type OrganizationEvent = {
  type: 'OrganizationCreated';
  data: { organizationId: string; name: string; timezone: string; currency: string; phoneCountryCode: string; createdAt: string };
};

export interface OrganizationState {
  exists: boolean;
}

export const initialOrganizationState = (): OrganizationState => ({ exists: false });

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { exists: true };
    default: {
      const _never: never = event.type;
      return state;
    }
  }
}

export const organizationAggregate = { initialState: initialOrganizationState, evolve: evolveOrganization };
