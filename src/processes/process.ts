// A process manager: a long-running worker started with the service and stopped cleanly with it.
import type { Services } from '../services.ts';

export interface ProcessManager {
  name: string;
  start(services: Services): { stop(): Promise<void> };
}
