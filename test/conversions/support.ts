// Conversion test fixtures: an organisation with a source, targets and flows made through the same command
// handlers the operator CLI calls, and a poll that waits for deliveries to reach a status.
import { createSource } from '../../commands/source/handlers.ts';
import { createTarget } from '../../commands/target/handlers.ts';
import { createFlow } from '../../commands/flow/handlers.ts';
import type { TestOrg, TestServer } from '../support/server.ts';

export interface Setup extends TestOrg {
  sourceId: string;
  targets: { id: string; datasetId: string }[];
}

export async function setupConversions(
  server: TestServer,
  options: { kind?: 'shop' | 'spreadsheet'; status?: string; eventName?: string; targets: { datasetId: string; mode: 'test' | 'live'; testCode?: string }[] },
): Promise<Setup> {
  const org = await server.newOrganization();
  const { store, secrets } = server.services;
  const now = new Date();
  const source = await createSource(store, { organizationId: org.organizationId, kind: options.kind ?? 'spreadsheet', name: 'CRM export' }, now);
  const targets = [];
  let last = source.position;
  for (const t of options.targets) {
    const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId: t.datasetId, token: 'EAAB-test-token-123', mode: t.mode, testCode: t.testCode ?? null }, now);
    ({ position: last } = await createFlow(store, { sourceId: source.id, targetId: target.id, eventName: options.eventName ?? 'Lead', trigger: { kind: 'status', status: options.status ?? 'won' } }, now));
    targets.push({ id: target.id, datasetId: t.datasetId });
  }
  // Our own last append, not the store's head: a transaction still open elsewhere can hide the head.
  await server.services.waiter.waitFor(['setup'], last, 10_000);
  return { ...org, sourceId: source.id, targets };
}

/**
 * Waits (polling the read model, which spares the key's rate limit) until no delivery of the events is
 * pending, sending or in retry, then returns them as GET /events/{id} shows them.
 */
export async function waitForDeliveries(server: TestServer, key: string, eventIds: string[], timeoutMs = 20_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await server.services.pool.query<{ open: string; total: string }>(
      `SELECT count(*) FILTER (WHERE status IN ('pending', 'sending', 'retry')) AS open, count(*) AS total FROM deliveries_view WHERE event_id = ANY($1)`,
      [eventIds],
    );
    if (rows[0].open === '0' && rows[0].total !== '0') break;
    if (Date.now() > deadline) throw new Error(`deliveries still open: ${rows[0].open} of ${rows[0].total}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const all: any[] = [];
  for (const id of eventIds) {
    const res = await server.request('GET', `/events/${id}`, { key });
    if (res.status !== 200) throw new Error(`GET /events/${id}: ${res.status} ${JSON.stringify(res.body)}`);
    all.push(...res.body.deliveries);
  }
  return all;
}

/** Waits until every delivery of the events is in the work table (a store head read now could still hide them). */
export async function waitForQueued(server: TestServer, eventIds: string[], expected: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await server.services.pool.query<{ n: string }>('SELECT count(*) AS n FROM delivery_queue WHERE event_id = ANY($1)', [eventIds]);
    if (Number(rows[0].n) === expected) return;
    if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${expected} deliveries queued`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const recentIso = (secondsAgo = 60) => new Date(Date.now() - secondsAgo * 1000).toISOString();
