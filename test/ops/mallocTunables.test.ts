// `npm start` and `npm run bench` run the Node process (and so the embedded PostgreSQL it starts) with the malloc
// settings of src/db/embedded.ts, unless the caller gives GLIBC_TUNABLES of its own (docs/speed/contacts-and-leads.md,
// session 6). The scripts' prefix is run through sh here, as npm runs it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MALLOC_TUNABLES } from '../../src/db/embedded-process.ts';

const test = suite('npm scripts: the service and bench processes keep their freed heap');
const scripts = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).scripts as Record<string, string>;

/** What GLIBC_TUNABLES a command started by the script's prefix sees. */
function seenBy(script: string, env: NodeJS.ProcessEnv): string {
  const prefix = script.slice(0, script.search(/ (node|tsx) /));
  return execFileSync('sh', ['-c', `${prefix} "$NODE" -e 'process.stdout.write(process.env.GLIBC_TUNABLES ?? "")'`], {
    env: { PATH: process.env.PATH, NODE: process.execPath, ...env },
    encoding: 'utf8',
  });
}

for (const name of ['start', 'bench']) {
  test(`${name}: MALLOC_TUNABLES by default, the caller's own otherwise`, () => {
    assert.ok(/ (node|tsx) /.test(scripts[name]), scripts[name]);
    assert.is(seenBy(scripts[name], {}), MALLOC_TUNABLES);
    assert.is(seenBy(scripts[name], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }), 'glibc.malloc.arena_max=2');
  });
}

test.run();
