// Flow command handlers: the source and target are read from their streams, so a flow never points
// across organisations even when the read models lag.
import { randomUUID } from 'node:crypto';
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand, loadAggregate } from '../../src/eventstore/handle.ts';
import { sourceAggregate, sourceStream } from '../source/source.ts';
import { targetAggregate, targetStream } from '../target/target.ts';
import { flowAggregate, flowStream, type FlowTrigger } from './flow.ts';
import { decideActivateFlow, decideCreateFlow, decideDeactivateFlow } from './decide.ts';

export interface FlowInput {
  sourceId: string;
  targetId: string;
  eventName: string;
  trigger: FlowTrigger;
}

export async function createFlow(store: EventStore, input: FlowInput, now: Date): Promise<{ id: string; position: Position }> {
  const flowId = randomUUID();
  const [source, target] = await Promise.all([
    loadAggregate(store, sourceStream(input.sourceId), sourceAggregate),
    loadAggregate(store, targetStream(input.targetId), targetAggregate),
  ]);
  const sourceFacts = source.state.exists ? { organizationId: source.state.organizationId!, kind: source.state.kind! } : null;
  const targetFacts = target.state.exists ? { organizationId: target.state.organizationId! } : null;
  const handled = await handleCommand(store, flowStream(flowId), flowAggregate, (state) =>
    decideCreateFlow(state, {
      flowId, source: sourceFacts, target: targetFacts, sourceId: input.sourceId, targetId: input.targetId,
      eventName: input.eventName.trim(), trigger: input.trigger, now: now.toISOString(),
    }), { organizationId: sourceFacts?.organizationId ?? null, actor: 'operator' });
  return { id: flowId, position: handled.append!.position };
}

async function changeFlow(store: EventStore, flowId: string, decide: typeof decideDeactivateFlow, now: Date): Promise<Position | null> {
  const { state } = await loadAggregate(store, flowStream(flowId), flowAggregate);
  const handled = await handleCommand(store, flowStream(flowId), flowAggregate, (current) =>
    decide(current, { flowId, now: now.toISOString() }), { organizationId: state.organizationId, actor: 'operator' });
  return handled.append?.position ?? null;
}

export const deactivateFlow = (store: EventStore, flowId: string, now: Date) => changeFlow(store, flowId, decideDeactivateFlow, now);
export const activateFlow = (store: EventStore, flowId: string, now: Date) => changeFlow(store, flowId, decideActivateFlow, now);
