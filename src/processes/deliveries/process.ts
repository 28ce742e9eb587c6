// Registers the delivery worker with the service's process managers.
import type { ProcessManager } from '../process.ts';
import { DeliveryWorker, deliveryWorkerOptions } from './worker.ts';

export const deliveryProcess: ProcessManager = {
  name: 'deliveries',
  start(services) {
    const worker = new DeliveryWorker(services, deliveryWorkerOptions(services)).start();
    return { stop: () => worker.stop() };
  },
};
