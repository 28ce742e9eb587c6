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
  for (const t of options.targets) {
    const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.organizationId, datasetId: t.datasetId, token: 'EAAB-test-token-123', mode: t.mode, testCode: t.testCode ?? null }, now);
    await createFlow(store, { sourceId: source.id, targetId: target.id, eventName: options.eventName ?? 'Lead', trigger: { kind: 'status', status: options.status ?? 'won' } }, now);
    targets.push({ id: target.id, datasetId: t.datasetId });
  }
  await server.settle();
  return { ...org, sourceId: source.id, targets };
}

/** Polls GET /deliveries until every delivery of the events has left pending/sending/retry (bounded). */
export async function waitForDeliveries(server: TestServer, key: string, eventIds: string[], timeoutMs = 20_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all: any[] = [];
    for (const id of eventIds) {
      const res = await server.request('GET', `/events/${id}`, { key });
      all.push(...(res.body.deliveries ?? []));
    }
    const open = all.filter((d) => ['pending', 'sending', 'retry'].includes(d.status));
    if (open.length === 0 && all.length > 0) return all;
    if (Date.now() > deadline) throw new Error(`deliveries still open: ${JSON.stringify(open.map((d) => [d.id, d.status]))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const recentIso = (secondsAgo = 60) => new Date(Date.now() - secondsAgo * 1000).toISOString();
