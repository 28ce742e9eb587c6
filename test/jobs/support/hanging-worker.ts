// A worker process for the "killed worker" test: it claims a test_killed job, says "started", and hangs
// until the test kills it with SIGKILL (no shutdown step runs, as when a machine dies).
import { loadConfig } from '../../../src/config.ts';
import { boot } from '../../../src/boot.ts';
import { createLogger } from '../../../src/logger.ts';
import { JobEngine } from '../../../src/processes/jobs/engine.ts';

const url = process.argv[2];
const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', JOB_LEASE: '600ms', JOB_POLL: '50ms' });
const booted = await boot(config, { log: createLogger('silent'), poolSize: 3 });
const engine = new JobEngine(booted.services, {
  concurrency: 1,
  handlers: {
    test_killed: async () => {
      process.stdout.write('started\n');
      await new Promise(() => {});
      return { summary: 'never' };
    },
  },
});
await engine.start();
// Keep the process alive while the handler hangs.
setInterval(() => {}, 60_000);
