import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestOrg, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const test = suite<{ server: TestServer; org: TestOrg; dir: string }>('Leads: ops leads import streams a large export, still all or nothing');
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.org = await ctx.server.newOrganization();
  ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leads-stream-'));
});
test.after(async (ctx) => {
  await ctx.server.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
});

// Files of many 64 KB reads (the names' Polish letters and emoji fall across them).
const COUNT = 2_200;

interface Outcome { code: number; stdout: string; stderr: string }

function cli(server: TestServer, org: TestOrg, file: string): Promise<Outcome> {
  const env = { ...process.env, DATABASE_URL: server.db.url, LOG_LEVEL: 'silent' };
  return run(process.execPath, ['--import', 'tsx', 'ops/cli.ts', 'leads', 'import', '--org', org.organizationId, '--file', file, '--json'], { env, maxBuffer: 1 << 20 })
    .then((out) => ({ code: 0, ...out }), (error: Outcome) => error);
}

const time = (i: number) => new Date(Date.UTC(2025, 5, 1) + i * 60_000).toISOString().replace('.000Z', '+0000');
const nameOf = (i: number) => `Łucja 😀 ${i}`;

/** Graph lead objects as the JSON export has them; `bad` (1-based) lacks its form_id. */
function jsonExport(prefix: string, count: number, bad?: number): string {
  const items = Array.from({ length: count }, (_, i) => JSON.stringify({
    id: `${prefix}-${i}`, created_time: time(i), form_id: i + 1 === bad ? undefined : `form-${prefix}`, form_name: `Form ${prefix}`,
    ad_id: `${i % 7}`, ad_name: 'Ad', adset_id: '2', campaign_id: '3', platform: 'fb',
    field_data: [{ name: 'full_name', values: [nameOf(i)] }, { name: 'email', values: [`${prefix.toLowerCase()}-${i}@example.com`] }],
  }));
  return `[\n${items.join(',\n')}\n]\n`;
}

/** The Ads Manager download: UTF-16 with its byte-order mark, tab-separated; row `bad` (2 = first lead) has no date. */
function csvExport(prefix: string, count: number, bad?: number): Buffer {
  const lines = ['id\tcreated_time\tad_id\tform_id\tform_name\tis_organic\tplatform\tfull_name\temail\tphone_number'];
  for (let i = 0; i < count; i++) {
    const created = i + 2 === bad ? 'yesterday' : time(i);
    lines.push(`l:${prefix}-${i}\t${created}\tag:${i % 7}\tf:form-${prefix}\tForm ${prefix}\tfalse\tig\t${nameOf(i)}\t${prefix.toLowerCase()}-${i}@example.com\tp:+48${500_000_000 + i}`);
  }
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines.join('\n') + '\n', 'utf16le')]);
}

async function imported(server: TestServer, org: TestOrg, prefix: string): Promise<string[]> {
  await server.settle();
  const rows = await server.services.pool.query('SELECT platform_lead_id FROM leads WHERE organization_id = $1 AND platform_lead_id LIKE $2', [org.organizationId, `${prefix}-%`]);
  return rows.rows.map((r: { platform_lead_id: string }) => r.platform_lead_id).sort();
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`).sort();

test(`a JSON export of ${COUNT} leads: every lead once, its person made; importing again adds nothing`, async ({ server, org, dir }) => {
  const file = path.join(dir, 'big.json');
  fs.writeFileSync(file, jsonExport('SJ', COUNT));
  const first = await cli(server, org, file);
  assert.is(first.stderr, '');
  assert.equal(JSON.parse(first.stdout), { read: COUNT, created: COUNT, completed: 0, known: 0 });
  assert.equal(await imported(server, org, 'SJ'), ids('SJ', COUNT));
  const last = await server.request('GET', `/contacts?email=sj-${COUNT - 1}@example.com`, { key: org.key });
  assert.equal(last.body.data.map((c: { name: string }) => c.name), [nameOf(COUNT - 1)]);
  const again = await cli(server, org, file);
  assert.equal(JSON.parse(again.stdout), { read: COUNT, created: 0, completed: 0, known: COUNT });
  assert.equal(await imported(server, org, 'SJ'), ids('SJ', COUNT));
});

test(`an Ads Manager CSV (UTF-16, tabs) of ${COUNT} leads: every lead once; importing again adds nothing`, async ({ server, org, dir }) => {
  const file = path.join(dir, 'big.csv');
  fs.writeFileSync(file, csvExport('SC', COUNT));
  assert.equal(JSON.parse((await cli(server, org, file)).stdout), { read: COUNT, created: COUNT, completed: 0, known: 0 });
  assert.equal(await imported(server, org, 'SC'), ids('SC', COUNT));
  const middle = await server.request('GET', '/contacts?phone=500001234', { key: org.key });
  assert.equal(middle.body.data.map((c: { name: string; phone: string }) => [c.name, c.phone]), [[nameOf(1234), '+48500001234']]);
  assert.equal(JSON.parse((await cli(server, org, file)).stdout), { read: COUNT, created: 0, completed: 0, known: COUNT });
  assert.equal(await imported(server, org, 'SC'), ids('SC', COUNT));
});

test('a bad row late in a large file refuses it whole: exit 2, the row named on one line, no lead imported', async ({ server, org, dir }) => {
  const json = path.join(dir, 'late-bad.json');
  fs.writeFileSync(json, jsonExport('BJ', COUNT, COUNT - 3));
  const refusedJson = await cli(server, org, json);
  assert.is(refusedJson.code, 2);
  assert.is(refusedJson.stdout, '');
  assert.is(refusedJson.stderr, `${json}: row ${COUNT - 3}: lead BJ-${COUNT - 4} without form_id; nothing imported (--skip-invalid imports the other ${COUNT - 1} leads and leaves this one out)\n`);
  assert.equal(await imported(server, org, 'BJ'), []);
  const csv = path.join(dir, 'late-bad.csv');
  fs.writeFileSync(csv, csvExport('BC', COUNT, COUNT));
  const refusedCsv = await cli(server, org, csv);
  assert.is(refusedCsv.code, 2);
  assert.is(refusedCsv.stdout, '');
  assert.is(refusedCsv.stderr, `${csv}: row ${COUNT}: created_time "yesterday" is not a date-time; nothing imported (--skip-invalid imports the other ${COUNT - 1} leads and leaves this one out)\n`);
  assert.equal(await imported(server, org, 'BC'), []);
});

test('JSON that is cut short, not an array, or broken mid-file: exit 2 with one clear line, nothing imported', async ({ server, org, dir }) => {
  const whole = jsonExport('TJ', 1_000);
  const cases: Array<[string, string, RegExp]> = [
    ['cut.json', whole.slice(0, Math.floor(whole.length * 0.9)), /: not JSON: the file ends before the JSON does \(cut short\?\)$/],
    ['object.json', JSON.stringify({ leads: JSON.parse(whole) }), /: expected a JSON array of lead objects$/],
    ['trailing-comma.json', whole.replace(/\n\]\n$/, ',\n]\n'), /: not JSON: unexpected "\]" at position \d+$/],
    ['broken.json', whole.replace('"TJ-900"', '"TJ-900" "x"'), /: row 901: not JSON: .+$/],
  ];
  for (const [name, text, message] of cases) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const refused = await cli(server, org, file);
    assert.is(refused.code, 2, name);
    assert.is(refused.stdout, '', name);
    assert.is(refused.stderr.split('\n').length, 2, `${name}: one line`);
    assert.match(refused.stderr.trim(), message, name);
  }
  assert.equal(await imported(server, org, 'TJ'), []);
});

test('a Graph page object ({ "data": [...], "paging": ... }) is read as its data list', async ({ server, org, dir }) => {
  const file = path.join(dir, 'page.json');
  fs.writeFileSync(file, JSON.stringify({ data: JSON.parse(jsonExport('PJ', 3)), paging: { cursors: { before: 'a]', after: 'b}' } } }));
  assert.equal(JSON.parse((await cli(server, org, file)).stdout), { read: 3, created: 3, completed: 0, known: 0 });
  assert.equal(await imported(server, org, 'PJ'), ids('PJ', 3));
});

test.run();
