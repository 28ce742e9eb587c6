// Flow aggregate: a source's caller status (or a lead stage) mapped to a platform event on a target.
export const flowStream = (id: string) => `flow-${id}`;

export type FlowTrigger = { kind: 'status'; status: string } | { kind: 'stage'; stage: string };

export interface FlowCreatedData {
  flowId: string;
  organizationId: string;
  sourceId: string;
  targetId: string;
  eventName: string;
  trigger: FlowTrigger;
  createdAt: string;
}

export type FlowEvent =
  | { type: 'FlowCreated'; data: FlowCreatedData }
  | { type: 'FlowDeactivated'; data: { flowId: string; organizationId: string; deactivatedAt: string } }
  | { type: 'FlowActivated'; data: { flowId: string; organizationId: string; activatedAt: string } };

export interface FlowState {
  exists: boolean;
  organizationId: string | null;
  active: boolean;
}

export const initialFlowState = (): FlowState => ({ exists: false, organizationId: null, active: false });

export function evolveFlow(state: FlowState, event: FlowEvent): FlowState {
  switch (event.type) {
    case 'FlowCreated':
      return { exists: true, organizationId: event.data.organizationId, active: true };
    case 'FlowDeactivated':
      return { ...state, active: false };
    case 'FlowActivated':
      return { ...state, active: true };
    default: {
      const _never: never = event;
      return state;
    }
  }
}

export const flowAggregate = { initialState: initialFlowState, evolve: evolveFlow };
