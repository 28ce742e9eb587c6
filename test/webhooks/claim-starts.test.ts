import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClaimStarts } from '../../src/processes/webhooks/claim-starts.ts';
import { claimPushes, type Claim, type QueuedPush } from '../../src/processes/webhooks/queue-sql.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

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

const claims = suite<{ db: TestDatabase }>('Webhook sender: claims running side by side');
claims.before(async (ctx) => { ctx.db = await freshDatabase('wh_claims'); });
claims.after(async (ctx) => { await ctx.db.drop(); });

claims('a claim locks only the rows it takes: one running beside it never starts past a row left unsent', async ({ db }) => {
  // Three subscriptions with 50 due pushes each: a claim considers 40 of each (120) and takes 100.
  for (const id of ['a', 'b', 'c']) {
    await db.pool.query(`INSERT INTO webhook_subscriptions (organization_id, id, url, events, active, secret_ciphertext) VALUES ('org-1', $1, 'https://hooks.example.com/', '{}', true, 'v1.x')`, [id]);
  }
  await db.pool.query(`INSERT INTO webhook_queue (id, organization_id, webhook_id, event_type, event_id, payload, created_at, due_at)
    SELECT s || '-' || g, 'org-1', s, 'contact.created', 'e-' || g, '{}', '2026-01-01T00:00:00.000Z', now() - interval '1 minute' + g * interval '1 ms'
    FROM generate_series(1, 50) g, unnest(ARRAY['a', 'b', 'c']) s`);
  const now = new Date();
  const claim = (token: string, starts: ClaimStarts): Claim =>
    ({ token, now, until: new Date(now.getTime() + 60_000), limit: 100, pauseAfter: 20, perSubscription: 40, startAt: starts.next(1) });
  const starts = new ClaimStarts(60_000);
  starts.next(0);
  // The first claim's statement has run but not committed when the second one runs (two loops, two processes).
  const first = await db.pool.connect();
  const taken: string[] = [];
  try {
    await first.query('BEGIN');
    const held = await claimPushes(first, claim('first', starts));
    const beside = await claimPushes(db.pool, claim('beside', starts));
    await first.query('COMMIT');
    for (const pushes of [held, beside]) {
      starts.claimed(pushes);
      taken.push(...pushes.map((p) => p.id));
    }
  } finally {
    first.release();
  }
  // Later claims start where these ended, and no full scan comes: every push is still taken, once.
  for (let round = 0; round < 5; round++) {
    const pushes = await claimPushes(db.pool, claim(`later-${round}`, starts));
    starts.claimed(pushes);
    taken.push(...pushes.map((p) => p.id));
  }
  assert.is(taken.length, 150);
  assert.is(new Set(taken).size, 150);
});

// A receiver failing everything got a whole batch (up to perSubscription, 40) of pushes past the count: the
// subscription was paused 'after 27 failed attempts in a row' where WEBHOOK_PAUSE_AFTER said 20.
claims('a claim takes no more of a subscription\'s pushes than the failures it has left before the pause', async ({ db }) => {
  for (const id of ['healthy', 'failing', 'at-count']) {
    await db.pool.query(`INSERT INTO webhook_subscriptions (organization_id, id, url, events, active, secret_ciphertext) VALUES ('org-2', $1, 'https://hooks.example.com/', '{}', true, 'v1.x')`, [id]);
  }
  await db.pool.query(`INSERT INTO webhook_health (organization_id, webhook_id, consecutive, resumes) VALUES ('org-2', 'failing', 17, 0), ('org-2', 'at-count', 20, 0)`);
  await db.pool.query(`INSERT INTO webhook_queue (id, organization_id, webhook_id, event_type, event_id, payload, created_at, due_at)
    SELECT s || '-' || g, 'org-2', s, 'contact.created', 'e-' || g, '{}', '2026-01-01T00:00:00.000Z', now() - interval '1 minute' + g * interval '1 ms'
    FROM generate_series(1, 30) g, unnest(ARRAY['healthy', 'failing', 'at-count']) s`);
  const now = new Date();
  const pushes = await claimPushes(db.pool, { token: 'budget', now, until: new Date(now.getTime() + 60_000), limit: 100, pauseAfter: 20, perSubscription: 40, startAt: [] });
  const taken = (webhookId: string) => pushes.filter((p) => p.organization_id === 'org-2' && p.webhook_id === webhookId).length;
  assert.equal([taken('healthy'), taken('failing'), taken('at-count')], [20, 3, 0]);
});

claims.run();
