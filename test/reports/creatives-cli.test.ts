// `ops creatives tag`: tags are kept for an organisation that exists; any other is exit 2 and changes nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from './cli.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: creatives tag needs an organisation that exists');

test.before(async (ctx) => { ctx.db = await freshDatabase('creatives_cli'); });
test.after(async (ctx) => { await ctx.db.drop(); });

test('an unknown organisation is exit 2 with nothing appended; a known one is tagged', async (ctx) => {
  const tagged = async () => Number((await ctx.db.pool.query("SELECT count(*) FROM es_events WHERE event_type = 'CreativeTagged'")).rows[0].count);
  const refused = await runOps(ctx.db.url, ['creatives', 'tag', '--org', 'no-such-org', 'video:v-1', 'hook:question', '--json']);
  assert.is(refused.code, 2, refused.stdout);
  assert.is(refused.stdout, '');
  assert.match(refused.stderr, /not_found/);
  assert.is(await tagged(), 0);
  const org = JSON.parse((await runOps(ctx.db.url, ['org', 'create', '--name', 'Tags', '--json'])).stdout).id;
  const ok = await runOps(ctx.db.url, ['creatives', 'tag', '--org', org, 'video:v-1', 'hook:question', '--json']);
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout), { group_id: 'video:v-1', tags: ['hook:question'], changed: true });
  assert.is(await tagged(), 1);
});

test.run();
