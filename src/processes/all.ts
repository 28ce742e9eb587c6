// Every process manager started by the worker side of the service.
import type { ProcessManager } from './process.ts';

export const processes: ProcessManager[] = [];
