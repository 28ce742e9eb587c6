// Target commands: create a dataset connection (the handler seals the token before it gets here).
import { ApiError, validationError } from '../shared/errors.ts';
import type { TargetEvent, TargetMode, TargetState } from './target.ts';

export interface CreateTarget {
  targetId: string;
  organizationId: string;
  organizationExists: boolean;
  datasetId: string;
  tokenCiphertext: string;
  mode: string;
  testCode: string | null;
  now: string;
}

export const TEST_CODE_MAX_LENGTH = 64;

/** Each way a test code is wrong says so: a code too long or with a space was told test mode needs one. */
function checkTestCode(testCode: string | null): void {
  if (testCode === null) throw validationError('test_code', 'test mode needs the test event code shown in the platform\'s Test Events tab');
  if (testCode.length > TEST_CODE_MAX_LENGTH) throw validationError('test_code', `at most ${TEST_CODE_MAX_LENGTH} characters, got ${testCode.length}`);
  if (!/^[A-Za-z0-9_-]+$/.test(testCode)) throw validationError('test_code', 'letters, digits, - and _ only, as the platform\'s Test Events tab shows it');
}

export function decideCreateTarget(state: TargetState, cmd: CreateTarget): { events: TargetEvent[]; result: { id: string } } {
  if (state.exists) throw new ApiError('conflict', { target_id: cmd.targetId });
  if (!cmd.organizationExists) throw new ApiError('not_found', { organization_id: cmd.organizationId }, 'unknown organisation');
  // The id goes into the platform's URL path: one path segment of plain characters (the platform's are digits).
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cmd.datasetId)) throw validationError('dataset', 'the platform dataset id (letters, digits, - and _)');
  if (cmd.mode !== 'test' && cmd.mode !== 'live') throw validationError('mode', 'test or live');
  if (cmd.mode === 'live' && cmd.testCode !== null) throw validationError('test_code', 'a test event code belongs to test mode');
  if (cmd.mode === 'test') checkTestCode(cmd.testCode);
  const { targetId, organizationId, datasetId, tokenCiphertext, testCode, now } = cmd;
  return {
    events: [{ type: 'TargetCreated', data: { targetId, organizationId, datasetId, tokenCiphertext, mode: cmd.mode as TargetMode, testCode, createdAt: now } }],
    result: { id: targetId },
  };
}
