// A whole worker process (projectors and every process manager) on DATABASE_URL, for the test that kills
// one mid-send. Prints "ready" once its workers run. Does nothing when merely imported (a test runner
// given a broad file pattern may load it).
import path from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { boot } from '../../../src/boot.ts';

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const booted = await boot(loadConfig());
  await booted.startWorkers();
  process.stdout.write('ready\n');
}
