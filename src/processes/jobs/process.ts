// The jobs process manager: the job engine with every job kind of the service, and the scheduler.
import type { ProcessManager } from '../process.ts';
import type { Services } from '../../services.ts';
import type { JobKind } from '../../../commands/job/kinds.ts';
import { JobEngine } from './engine.ts';
import type { JobHandler } from './handler.ts';
import { JobScheduler } from './scheduler.ts';
import { adSpendJob } from './kinds/ad-spend.ts';
import { creativeSyncJob } from './kinds/creative-sync.ts';
import { leadImportJob } from './kinds/lead-import.ts';
import { sheetsSyncJob } from './kinds/sheets-sync.ts';

export function jobHandlers(): Record<JobKind, JobHandler> {
  return {
    lead_import: leadImportJob,
    ad_spend: adSpendJob,
    creative_sync: creativeSyncJob,
    sheets_sync: sheetsSyncJob,
  };
}

export const jobsProcess: ProcessManager = {
  name: 'jobs',
  start(services: Services) {
    const log = services.log.child({ component: 'jobs' });
    const engine = new JobEngine(services, { handlers: jobHandlers(), stopGraceMs: services.config.shutdownGraceMs });
    const scheduler = new JobScheduler(services);
    const started = Promise.all([engine.start(), scheduler.start()]).catch((error) => log.error('jobs did not start', { error }));
    return {
      async stop() {
        await started;
        await scheduler.stop();
        await engine.stop();
      },
    };
  },
};
