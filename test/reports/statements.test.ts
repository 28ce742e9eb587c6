// A report's statements run two at a time (queries/reports/statements.ts), as the database itself saw them run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { statementsAtMost } from '../../queries/reports/statements.ts';

const test = suite<{ db: TestDatabase }>('Reports: statements two at a time');
test.before(async (ctx) => { ctx.db = await freshDatabase('report_statements'); });
test.after(async (ctx) => { await ctx.db.drop(); });

interface Ran { i: number; started: Date; ended: Date }

/** The most statements running at one moment, from the times the database took at their start and end. */
function mostAtOnce(ran: Ran[]): number {
  // At the moment each one started: the ones started by then and not yet ended (a peak begins at some start).
  return Math.max(...ran.map((r) => ran.filter((o) => o.started <= r.started && o.ended > r.started).length));
}

test('six statements given at once: never more than two running, started in the order given, each its own answer', async ({ db }) => {
  const limited = statementsAtMost(db.pool);
  const asked = [0, 1, 2, 3, 4, 5].map((i) => limited.query<Ran>(
    'SELECT $1::int AS i, clock_timestamp() AS started, pg_sleep(0.05), clock_timestamp() AS ended', [i],
  ));
  const ran = (await Promise.all(asked)).map((res) => res.rows[0]);
  assert.equal(ran.map((r) => r.i), [0, 1, 2, 3, 4, 5]);
  assert.is(mostAtOnce(ran), 2);
  const byStart = [...ran].sort((a, b) => a.started.getTime() - b.started.getTime()).map((r) => r.i);
  assert.equal(byStart.slice(4), [4, 5], 'the last two given start last');

  // Unlimited, the same six overlap: the limit is what held them back.
  const free = (await Promise.all([0, 1, 2, 3, 4, 5].map((i) => db.pool.query<Ran>(
    'SELECT $1::int AS i, clock_timestamp() AS started, pg_sleep(0.3), clock_timestamp() AS ended', [i],
  )))).map((res) => res.rows[0]);
  assert.ok(mostAtOnce(free) > 2, `unlimited, ${mostAtOnce(free)} ran at once`);
});

test('a failing statement fails alone and frees its slot', async ({ db }) => {
  const limited = statementsAtMost(db.pool);
  const results = await Promise.allSettled([
    limited.query('SELECT 1 / 0'),
    limited.query('SELECT pg_sleep(0.02), 2 AS n'),
    limited.query('SELECT 3 AS n'),
    limited.query('SELECT 4 AS n'),
  ]);
  assert.is(results[0].status, 'rejected');
  assert.match(String((results[0] as PromiseRejectedResult).reason), /division by zero/);
  assert.equal(results.slice(1).map((r) => (r as PromiseFulfilledResult<{ rows: { n: number }[] }>).value.rows[0].n), [2, 3, 4]);
});

test.run();
