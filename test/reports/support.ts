// The report tests' server: jobs do not run (hand-built ad account events would start spend syncs), and
// settling waits for the reporting projectors only.
import { startTestServer, type TestServer } from '../support/server.ts';
import { committedHeadOn } from '../../src/eventstore/postgres-sql.ts';
import { comparePositions, type Position } from '../../src/eventstore/port.ts';

export const REPORTING = ['reporting_leads', 'reporting_ads'];

export async function startReportServer(): Promise<TestServer> {
  return startTestServer({ JOB_CONCURRENCY: '0' });
}

/**
 * Waits until the reporting projectors passed the newest committed event and every position given (the store's
 * visible head can lag behind a committed append while an older transaction, a job's, is still open).
 */
export async function settleReports(server: TestServer, ...appended: Position[]): Promise<void> {
  const head = await committedHeadOn(server.services.pool);
  const target = appended.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b), head);
  const reached = await server.services.waiter.waitFor(REPORTING, target, 10_000);
  if (!reached) throw new Error('the reporting projectors did not reach the head of the store');
}
