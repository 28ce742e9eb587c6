import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClaimStarts } from '../../src/processes/webhooks/claim-starts.ts';
import type { QueuedPush } from '../../src/processes/webhooks/queue-sql.ts';

const test = suite('Webhook sender: where each subscription\'s claims start');

const push = (webhookId: string, dueAt: string) => ({ organization_id: 'org-1', webhook_id: webhookId, due_at: new Date(dueAt) }) as QueuedPush;

test('the first claim and one every fullScanMs start from the oldest rows; the others at the latest due time claimed, a millisecond early', () => {
  const starts = new ClaimStarts(5000);
  assert.equal(starts.next(0), [], 'nothing known yet: from the oldest rows');
  starts.claimed([push('a', '2026-01-01T00:00:01.000Z'), push('a', '2026-01-01T00:00:03.000Z'), push('b', '2026-01-01T00:00:02.000Z')]);
  assert.equal(starts.next(1000).map((s) => [s.webhookId, s.dueAt.toISOString()]), [['a', '2026-01-01T00:00:02.999Z'], ['b', '2026-01-01T00:00:01.999Z']]);
  assert.equal(starts.next(5000), [], 'a scan from the oldest rows takes what a dead worker\'s expired lease left behind');
  assert.is(starts.next(5001).length, 2);
});

test('a start never moves back (a later claim of older rows, a retry due earlier)', () => {
  const starts = new ClaimStarts(5000);
  starts.next(0);
  starts.claimed([push('a', '2026-01-01T00:00:05.000Z')]);
  starts.claimed([push('a', '2026-01-01T00:00:04.000Z')]);
  assert.is(starts.next(1).map((s) => s.dueAt.toISOString())[0], '2026-01-01T00:00:04.999Z');
});

test.run();
