// Target command handlers: the access token is sealed here and never leaves the service again.
import { randomUUID } from 'node:crypto';
import type { EventStore, Position } from '../../src/eventstore/port.ts';
import { handleCommand } from '../../src/eventstore/handle.ts';
import { seal } from '../../src/crypto/secretBox.ts';
import { validationError } from '../shared/errors.ts';
import { organizationExists } from '../organization/handlers.ts';
import { targetAggregate, targetStream } from './target.ts';
import { decideCreateTarget } from './decide.ts';

export interface TargetInput {
  organizationId: string;
  datasetId: string;
  token: string;
  mode?: string;
  testCode?: string | null;
}

export async function createTarget(store: EventStore, encryptionKey: Buffer, input: TargetInput, now: Date): Promise<{ id: string; position: Position }> {
  const token = input.token.trim();
  if (token === '' || /\s/.test(token)) throw validationError('token', 'the platform access token (not empty, no spaces)');
  const targetId = randomUUID();
  const exists = await organizationExists(store, input.organizationId);
  const handled = await handleCommand(store, targetStream(targetId), targetAggregate, (state) =>
    decideCreateTarget(state, {
      targetId, organizationId: input.organizationId, organizationExists: exists, datasetId: input.datasetId.trim(),
      tokenCiphertext: seal(token, encryptionKey), mode: input.mode ?? (input.testCode ? 'test' : 'live'), testCode: input.testCode ?? null,
      now: now.toISOString(),
    }), { organizationId: input.organizationId, actor: 'operator' });
  return { id: targetId, position: handled.append!.position };
}
