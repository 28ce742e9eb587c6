// The report tests' server: jobs do not run (hand-built ad account events would start spend syncs), and
// settling waits for the reporting projectors only.
import { startTestServer, type TestServer } from '../support/server.ts';

export const REPORTING = ['reporting_leads', 'reporting_ads'];

export async function startReportServer(): Promise<TestServer> {
  return startTestServer({ JOB_CONCURRENCY: '0' });
}

export async function settleReports(server: TestServer): Promise<void> {
  const head = await server.services.store.headPosition();
  const reached = await server.services.waiter.waitFor(REPORTING, head, 10_000);
  if (!reached) throw new Error('the reporting projectors did not reach the head of the store');
}
