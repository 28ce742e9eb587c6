// Every process manager started by the worker side of the service.
import type { ProcessManager } from './process.ts';
import { jobsProcess } from './jobs/process.ts';
import { leadFetchProcess } from './leadFetch.ts';
import { deliveryProcess } from './deliveries/process.ts';
import { webhookProcess } from './webhooks/process.ts';

export const processes: ProcessManager[] = [
  jobsProcess,
  leadFetchProcess,
  deliveryProcess,
  webhookProcess,
];
