// Creative group command handlers.
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { creativeGroupAggregate, creativeGroupStream } from './creativegroup.ts';
import { decideTagCreativeGroup, type TagChange } from './decide.ts';
import { requireOrganization } from '../organization/handlers.ts';

export async function tagCreativeGroup(
  store: EventStore,
  input: { organizationId: string; groupId: string; changes: TagChange[] },
  now: Date,
  actor = 'operator',
): Promise<{ tags: string[]; position: Position | null }> {
  await requireOrganization(store, input.organizationId);
  const handled = await handleCommand(
    store,
    creativeGroupStream(input.organizationId, input.groupId),
    creativeGroupAggregate,
    (state) => decideTagCreativeGroup(state, { ...input, now: now.toISOString() }),
    { organizationId: input.organizationId, actor },
  );
  return { tags: handled.result.tags, position: handled.append?.position ?? null };
}
