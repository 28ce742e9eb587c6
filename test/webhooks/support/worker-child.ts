// A whole worker process (projectors and every process manager) on DATABASE_URL, for the test that kills
// one mid-send. Prints "ready" once its workers run.
import { loadConfig } from '../../../src/config.ts';
import { boot } from '../../../src/boot.ts';

const booted = await boot(loadConfig());
await booted.startWorkers();
process.stdout.write('ready\n');
