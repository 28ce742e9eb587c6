// `ops owners roundrobin`: turn round-robin owner assignment on (with its users, in order) or off.
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { requireOrganization } from '../organization/handlers.ts';
import { validationError } from '../shared/errors.ts';
import { ownersAggregate, ownersStream, type OwnersEvent } from './owners.ts';

export function decideConfigureRoundRobin(cmd: { organizationId: string; users: string[]; now: string }): { events: OwnersEvent[]; result: null } {
  const users = [...new Set(cmd.users.map((u) => u.trim()).filter(Boolean))];
  if (users.some((u) => u.length > 100)) throw validationError('users', 'a user id is at most 100 characters');
  return { events: [{ type: 'RoundRobinConfigured', data: { organizationId: cmd.organizationId, users, configuredAt: cmd.now } }], result: null };
}

export async function configureRoundRobin(store: EventStore, input: { organizationId: string; users: string[] }, now: Date): Promise<Position> {
  await requireOrganization(store, input.organizationId);
  const handled = await handleCommand(store, ownersStream(input.organizationId), ownersAggregate, () =>
    decideConfigureRoundRobin({ ...input, now: now.toISOString() }), { organizationId: input.organizationId, actor: 'operator' });
  return handled.append!.position;
}
