import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonItemReader, MAX_ITEM_CHARS, type JsonItem } from '../../src/platform/json-items.ts';
import { LeadExportError } from '../../src/platform/lead-export.ts';

const test = suite('Platform lead export: the JSON array read piece by piece');

/** The items of `text` given in pieces of `size` characters, or the error's message. */
function read(text: string, size: number): Array<[number, unknown]> | string {
  const reader = new JsonItemReader();
  const items: JsonItem[] = [];
  try {
    for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size), items);
    reader.end();
    return items.map(({ row, item }) => [row, item]);
  } catch (error) {
    if (!(error instanceof LeadExportError)) throw error;
    return error.message;
  }
}

/** The same outcome whatever the pieces' size (every place a piece can end). */
function readEveryWay(text: string): Array<[number, unknown]> | string {
  const first = read(text, text.length);
  for (let size = 1; size < text.length; size++) assert.equal(read(text, size), first, `pieces of ${size}`);
  return first;
}

test('items of any kind, with brackets, quotes and escapes inside strings, split anywhere', () => {
  const text = ' [{"a":"x\\"]}","b":[1,{"c":"\\\\"}]}, 2 ,"s\\"",null,true,{},"é😀\\u00e9"] ';
  assert.equal(readEveryWay(text), [[1, { a: 'x"]}', b: [1, { c: '\\' }] }], [2, 2], [3, 's"'], [4, null], [5, true], [6, {}], [7, 'é😀é']]);
  assert.equal(readEveryWay('[]'), []);
});

test('a Graph page object gives the items of its data list; its other members are read past', () => {
  assert.equal(readEveryWay('{"paging":{"x":"]}"},"data":[{"id":"1"},{"id":"2"}],"n":[1,{}]}'), [[1, { id: '1' }], [2, { id: '2' }]]);
  assert.equal(readEveryWay('{"data":[]}'), []);
  assert.is(readEveryWay('{"x":1}'), 'expected a JSON array of lead objects');
  assert.is(readEveryWay('{"data":{"id":"1"}}'), 'expected a JSON array of lead objects');
  assert.is(readEveryWay('{"data":[1],"data":[2]}'), 'not JSON: "data" given twice');
});

test('broken or cut-short JSON is refused with where it breaks', () => {
  assert.is(readEveryWay('[{"a":1},]'), 'not JSON: unexpected "]" at position 9');
  assert.is(readEveryWay('[{"a":1} {"b":2}]'), 'not JSON: unexpected "{" at position 9');
  assert.is(readEveryWay('[{"a":1}] x'), 'not JSON: unexpected "x" at position 10');
  assert.is(readEveryWay('[,]'), 'not JSON: unexpected "," at position 1');
  for (const cut of ['[', '[{"a":1}', '[{"a":', '[{"a":"]}', '[1', '{"data":[]', '{"data"']) {
    assert.is(readEveryWay(cut), 'not JSON: the file ends before the JSON does (cut short?)', cut);
  }
  assert.match(readEveryWay('[{"a":1},{"b":2]]') as string, /^row 2: not JSON: /);
  assert.match(readEveryWay('[1x]') as string, /^row 1: not JSON: /);
});

test('an item over the limit is refused, not held', () => {
  const big = `[{"a":1},{"x":"${'y'.repeat(MAX_ITEM_CHARS)}"}]`;
  assert.is(read(big, 1 << 16), `row 2: a lead object over ${MAX_ITEM_CHARS} characters`);
});

test.run();
