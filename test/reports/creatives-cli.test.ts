// `ops creatives tag`: tags are kept for a creative group some synced ad of an organisation that exists shows; an
// unknown organisation or group is exit 2 and changes nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { Given } from './events.ts';
import { runOps } from './cli.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: creatives tag needs an organisation that exists and a group it knows');

test.before(async (ctx) => { ctx.db = await freshDatabase('creatives_cli'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const taggedCount = async (ctx: Ctx) => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'CreativeTagged'")).rows[0].count);

test('an unknown organisation is exit 2 with nothing appended; a known one is tagged', async (ctx) => {
  const refused = await runOps(ctx.db.url, ['creatives', 'tag', '--org', 'no-such-org', 'video:v-1', 'hook:question', '--json']);
  assert.is(refused.code, 2, refused.stdout);
  assert.is(refused.stdout, '');
  assert.match(refused.stderr, /not_found/);
  assert.is(await taggedCount(ctx), 0);
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Tags', '--json'])).stdout).id;
  await new Given(new PostgresEventStore(ctx.db.pool, ctx.db.url), org).creativeSynced('act_1', 'ad-1', { video_id: 'v-1' });
  const ok = await runOps(ctx.db.url, ['creatives', 'tag', '--org', org, 'video:v-1', 'hook:question', '--json']);
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout), { group_id: 'video:v-1', tags: ['hook:question'], changed: true });
  assert.is(await taggedCount(ctx), 1);
});

test('a group no synced ad of the organisation shows (a typo, another organisation\'s) is exit 2 with nothing appended', async (ctx) => {
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Typos', '--json'])).stdout).id;
  const before = await taggedCount(ctx);
  // video:v-1 is the first test's organisation's group, video:v-2 nobody's.
  for (const group of ['video:v-1', 'video:v-2']) {
    const refused = await runOps(ctx.db.url, ['creatives', 'tag', '--org', org, group, 'hook:question', '--json']);
    assert.is(refused.code, 2, refused.stdout);
    assert.is(refused.stdout, '');
    assert.match(refused.stderr, new RegExp(`not_found: no creative group ${group}`));
  }
  assert.is(await taggedCount(ctx), before);
});

test.run();
