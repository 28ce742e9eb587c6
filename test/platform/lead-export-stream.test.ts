import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeExportFile, parseLeadExport, type PlatformLead } from '../../src/platform/leads.ts';
import { readLeadExport } from '../../src/platform/lead-export-stream.ts';

const test = suite<{ dir: string }>('Platform lead export: the file read as a stream gives what the whole file gives');
test.before((ctx) => { ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-stream-')); });
test.after((ctx) => { fs.rmSync(ctx.dir, { recursive: true, force: true }); });

const PIECE = 1 << 16;
const EMOJI = '😀';

async function streamed(file: string, onBytes?: (bytes: number) => void): Promise<PlatformLead[]> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const leads: PlatformLead[] = [];
    for await (const lead of readLeadExport({ file: handle, name: file, onBytes })) leads.push(lead);
    return leads;
  } finally {
    await handle.close();
  }
}

/** The text with the emoji's encoding cut by the first piece's end: padding before it in the first lead's name. */
function cutAtPiece(before: (pad: string) => string, after: string, encode: (text: string) => Buffer, cutInside: number): Buffer {
  const head = encode(before('')).length;
  const perChar = encode(before('xx')).length - encode(before('x')).length;
  const pad = 'x'.repeat((PIECE - cutInside - head) / perChar);
  const bytes = encode(before(pad) + EMOJI + after);
  assert.is(encode(before(pad)).length, PIECE - cutInside);
  return bytes;
}

test('UTF-8 JSON with a character cut by a piece\'s end', async ({ dir }) => {
  const lead = (i: number, name: string) => JSON.stringify({ id: `U-${i}`, created_time: '2025-03-01T10:00:00+0000', form_id: 'f', form_name: 'F', field_data: [{ name: 'full_name', values: [name] }] });
  const bytes = cutAtPiece((pad) => `[${lead(1, 'skip')},${lead(2, pad).slice(0, -5)}`, `"]}]},${lead(3, 'Ola')}]`, (t) => Buffer.from(t), 2);
  const file = path.join(dir, 'cut.json');
  fs.writeFileSync(file, bytes);
  let read = 0;
  const leads = await streamed(file, (bytes) => { read = bytes; });
  assert.equal(leads, parseLeadExport(decodeExportFile(bytes), 'json'));
  assert.is(leads[1].fullName?.endsWith(EMOJI), true);
  assert.is(read, bytes.length);
});

test('UTF-16 tab-separated CSV with a surrogate pair cut by a piece\'s end', async ({ dir }) => {
  const header = 'id\tcreated_time\tform_id\tform_name\tfull_name\tphone_number\n';
  const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const bytes = cutAtPiece((pad) => `${header}l:1\t2025-03-01T10:00:00+0000\tf:9\tForm\t${pad}`, '\tp:+48600100200\nl:2\t2025-03-02T10:00:00+0000\tf:9\tForm\tEwa\t\n', utf16, 2);
  const file = path.join(dir, 'cut.csv');
  fs.writeFileSync(file, bytes);
  const leads = await streamed(file);
  assert.equal(leads, parseLeadExport(decodeExportFile(bytes), 'csv'));
  assert.equal(leads.map((l) => [l.platformLeadId, l.phone]), [['1', '+48600100200'], ['2', null]]);
});

test('a file without a .csv name is told by its first character; a blank one is empty', async ({ dir }) => {
  const csv = path.join(dir, 'export.txt');
  const text = ' id;created_time;form_id\nl:7;2025-03-01T10:00:00+0000;f:3\n';
  fs.writeFileSync(csv, text);
  const leads = await streamed(csv);
  assert.equal(leads.map((l) => [l.platformLeadId, l.formId]), [['7', '3']]);
  assert.equal(leads, parseLeadExport(text, 'csv'));
  const blank = path.join(dir, 'blank.json');
  fs.writeFileSync(blank, ' \n\t\n');
  await streamed(blank).then(() => assert.unreachable(), (error: Error) => assert.is(error.message, 'the file is empty (no header, no leads)'));
});

test('a CSV with no row is a form without leads only when its header has id; one line of anything else is refused, not "0 leads read"', async ({ dir }) => {
  const refusal = /^not the platform's lead export: no row, and the CSV header has no id column$/;
  for (const [name, text] of [['note.txt', 'garbage\n'], ['other.csv', 'Order,Stage,E-mail'], ['spaced.csv', 'Order,Stage\n\n,\n']]) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    await streamed(file).then(() => assert.unreachable(name), (error: Error) => assert.match(error.message, refusal, name));
    assert.throws(() => parseLeadExport(text, 'csv'), refusal, name);
  }
  const empty = path.join(dir, 'no-leads.csv');
  fs.writeFileSync(empty, '\uFEFF"id","created_time","form_id"\r\n');
  assert.equal(await streamed(empty), []);
  assert.equal(parseLeadExport('id\tcreated_time\tform_id\n', 'csv'), []);
});

test('a CSV row is named by its row in the sheet: a blank row (an empty line, only separators) is no lead but keeps its number, a quoted cell on two lines is one row', async ({ dir }) => {
  const text = 'id,created_time,form_id,email\n'
    + 'l:B-1,2025-03-01T10:00:00+0000,f:9,b1@example.com\n'
    + '\n'
    + 'l:B-2,yesterday,f:9,b2@example.com\n'
    + ',,,\n'
    + 'l:B-3,2025-03-01T10:00:00+0000,f:9,"two\nlines"\n'
    + 'l:B-4,2025-03-01T10:00:00+0000,,b4@example.com\n'
    + 'l:B-5,2025-03-01T10:00:00+0000,f:9,b5@example.com\n';
  const file = path.join(dir, 'blank-rows.csv');
  fs.writeFileSync(file, text);
  const handle = await fs.promises.open(file, 'r');
  const bad: { row: number; platformLeadId: string }[] = [];
  const leads: PlatformLead[] = [];
  try {
    for await (const lead of readLeadExport({ file: handle, name: file, onBadRow: (b) => bad.push({ row: b.row, platformLeadId: b.platformLeadId }) })) leads.push(lead);
  } finally {
    await handle.close();
  }
  // Rows 1-8 as a spreadsheet shows the file: the header, B-1, blank, B-2, blank, B-3 (one row), B-4, B-5.
  assert.equal(bad, [{ row: 4, platformLeadId: 'B-2' }, { row: 7, platformLeadId: 'B-4' }]);
  assert.equal(leads.map((l) => l.platformLeadId), ['B-1', 'B-3', 'B-5']);
  assert.throws(() => parseLeadExport(text, 'csv'), (e: unknown) => (e as { row?: number }).row === 4);
  assert.equal(parseLeadExport(text.replace('yesterday', '2025-03-01T10:00:00+0000').replace(',,b4', ',f:9,b4'), 'csv').map((l) => l.platformLeadId), ['B-1', 'B-2', 'B-3', 'B-4', 'B-5']);
});

test.run();
