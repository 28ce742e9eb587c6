// Flow commands: create (source and target of one organisation), deactivate, activate.
import { ApiError, validationError } from '../shared/errors.ts';
import { charCount } from '../shared/text.ts';
import type { FlowEvent, FlowState, FlowTrigger } from './flow.ts';

export const LEAD_STAGES = ['new', 'contacted', 'qualified', 'sold', 'rejected'] as const;

export interface CreateFlow {
  flowId: string;
  /** The source and target as their streams tell them (null: no such stream). */
  source: { organizationId: string; kind: string } | null;
  target: { organizationId: string } | null;
  sourceId: string;
  targetId: string;
  eventName: string;
  trigger: FlowTrigger;
  now: string;
}

type Decision = { events: FlowEvent[]; result: { id: string } };

function checkTrigger(trigger: FlowTrigger, sourceKind: string): void {
  switch (trigger.kind) {
    case 'status':
      if (trigger.status.trim() === '' || charCount(trigger.status) > 80) throw validationError('status', '1-80 characters');
      if (sourceKind === 'form') throw validationError('status', 'a form source maps lead stages (--stage), not caller statuses');
      return;
    case 'stage':
      if (!(LEAD_STAGES as readonly string[]).includes(trigger.stage)) throw validationError('stage', `one of ${LEAD_STAGES.join(', ')}`);
      // Stage moves queue conversions for instant-form leads only: on another source the flow could never fire.
      if (sourceKind !== 'form') throw validationError('stage', 'a lead stage maps a form source\'s leads; this source takes caller statuses (--status)');
      return;
    default: {
      const _never: never = trigger;
      throw new Error('unknown trigger');
    }
  }
}

export function decideCreateFlow(state: FlowState, cmd: CreateFlow): Decision {
  if (state.exists) throw new ApiError('conflict', { flow_id: cmd.flowId });
  if (!cmd.source) throw new ApiError('not_found', { source_id: cmd.sourceId }, 'unknown source');
  if (!cmd.target || cmd.target.organizationId !== cmd.source.organizationId) {
    throw new ApiError('not_found', { target_id: cmd.targetId }, 'unknown target in the source\'s organisation');
  }
  // The platform takes standard event names and custom ones of up to 50 letters, digits, _ or -.
  if (!/^[A-Za-z0-9_-][A-Za-z0-9 _-]{0,49}$/.test(cmd.eventName)) throw validationError('event_name', '1-50 letters, digits, spaces, _ or -');
  checkTrigger(cmd.trigger, cmd.source.kind);
  const { flowId, sourceId, targetId, eventName, trigger, now } = cmd;
  const trimmed: FlowTrigger = trigger.kind === 'status' ? { kind: 'status', status: trigger.status.trim() } : trigger;
  return {
    events: [{ type: 'FlowCreated', data: { flowId, organizationId: cmd.source.organizationId, sourceId, targetId, eventName, trigger: trimmed, createdAt: now } }],
    result: { id: flowId },
  };
}

export function decideDeactivateFlow(state: FlowState, cmd: { flowId: string; now: string }): Decision {
  if (!state.exists || !state.organizationId) throw new ApiError('not_found', { flow_id: cmd.flowId }, 'unknown flow');
  if (!state.active) return { events: [], result: { id: cmd.flowId } };
  return { events: [{ type: 'FlowDeactivated', data: { flowId: cmd.flowId, organizationId: state.organizationId, deactivatedAt: cmd.now } }], result: { id: cmd.flowId } };
}

export function decideActivateFlow(state: FlowState, cmd: { flowId: string; now: string }): Decision {
  if (!state.exists || !state.organizationId) throw new ApiError('not_found', { flow_id: cmd.flowId }, 'unknown flow');
  if (state.active) return { events: [], result: { id: cmd.flowId } };
  return { events: [{ type: 'FlowActivated', data: { flowId: cmd.flowId, organizationId: state.organizationId, activatedAt: cmd.now } }], result: { id: cmd.flowId } };
}
