// A delivery worker in a process of its own, so a test can kill it mid-send (SIGKILL: no clean-up runs).
import { loadConfig } from '../../src/config.ts';
import { boot } from '../../src/boot.ts';
import { createLogger } from '../../src/logger.ts';
import { DeliveryWorker, deliveryWorkerOptions } from '../../src/processes/deliveries/worker.ts';

// Only as a spawned child (crash.test.ts sets these); a test runner importing this file must not boot a service.
if (!process.env.LEASE_MS || !process.env.DATABASE_URL) throw new Error('worker-child.ts runs as a child process of crash.test.ts');

const booted = await boot(loadConfig(), { log: createLogger('warn', { process: 'worker-child' }, process.stderr), poolSize: 4 });
new DeliveryWorker(booted.services, deliveryWorkerOptions(booted.services, {
  loops: 1, sending: true, batchSize: Number(process.env.BATCH_SIZE), leaseMs: Number(process.env.LEASE_MS), timeoutMs: Number(process.env.TIMEOUT_MS),
})).start();
process.stdout.write('ready\n');
