// `ops source create --kind form`: the source a form's leads arrive on, so flows made on it see them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formSourceId } from '../../commands/source/handlers.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runOps } from '../reports/cli.ts';

interface Ctx { db: TestDatabase }
const test = suite<Ctx>('Operator CLI: a form source made by the operator is the one its form\'s leads arrive on');

test.before(async (ctx) => { ctx.db = await freshDatabase('ops_sources'); });
test.after(async (ctx) => { await ctx.db.drop(); });

const ops = (ctx: Ctx, args: string[]) => runOps(ctx.db.url, [...args, '--json']);

test('source create --kind form takes the form\'s source id; a lead of the form lands on it; a second one for the form is exit 2', async (ctx) => {
  const org = JSON.parse((await ops(ctx, ['org', 'create', '--name', 'Forms'])).stdout).id as string;
  const made = await ops(ctx, ['source', 'create', '--org', org, '--kind', 'form', '--name', 'Spring offer', '--form-id', '555']);
  assert.is(made.code, 0, made.stderr);
  const sourceId = JSON.parse(made.stdout).id as string;
  assert.is(sourceId, formSourceId(org, '555'));

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-sources-')), 'leads.json');
  fs.writeFileSync(file, JSON.stringify([{
    id: '120200300400', created_time: '2026-03-01T10:00:00+0000', form_id: '555', form_name: 'Spring offer',
    field_data: [{ name: 'email', values: ['anna@example.com'] }],
  }]));
  const imported = await ops(ctx, ['leads', 'import', '--org', org, '--file', file]);
  assert.is(imported.code, 0, imported.stderr);
  assert.equal(JSON.parse(imported.stdout), { read: 1, created: 1, completed: 0, known: 0 });
  const leads = await ctx.db.pool.query('SELECT source_id FROM leads WHERE organization_id = $1', [org]);
  assert.equal(leads.rows.map((r) => r.source_id), [sourceId]);
  const listed = JSON.parse((await ops(ctx, ['source', 'list', '--org', org])).stdout) as { id: string; kind: string; platform_form_id: string }[];
  assert.equal(listed.map((s) => [s.id, s.kind, s.platform_form_id]), [[sourceId, 'form', '555']]);

  const events = async () => Number((await ctx.db.pool.query('SELECT count(*) FROM es_events')).rows[0].count);
  const before = await events();
  const again = await ops(ctx, ['source', 'create', '--org', org, '--kind', 'form', '--name', 'Again', '--form-id', '555']);
  assert.is(again.code, 2, again.stdout);
  assert.is(again.stdout, '');
  assert.is(again.stderr, `form 555 already has its source ${sourceId}\n`);
  assert.is(await events(), before);
});

// DESIGN.md's contract: `source create --org ID --kind spreadsheet|shop|form --name N [--csv-url URL]` -> { "id" }.
// A form source without --form-id used to be refused (validation_error platform_form_id, exit code 2).
test('source create --kind form without --form-id: the contract\'s command line makes a form source with no platform form', async (ctx) => {
  const org = JSON.parse((await ops(ctx, ['org', 'create', '--name', 'Form without id'])).stdout).id as string;
  const made = await ops(ctx, ['source', 'create', '--org', org, '--kind', 'form', '--name', 'Walk-in form']);
  assert.is(made.code, 0, made.stderr);
  const { id } = JSON.parse(made.stdout) as { id: string };
  const listed = JSON.parse((await ops(ctx, ['source', 'list', '--org', org])).stdout) as unknown[];
  assert.equal(listed, [{ id, kind: 'form', name: 'Walk-in form', platform_form_id: null, paused: false }]);
});

test.run();
