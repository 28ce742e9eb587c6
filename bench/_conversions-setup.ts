// Shared by the conversions benches: an organisation whose spreadsheet source sends status "won" to one or
// more live datasets, and the POST /events body autocannon sends (a new conversion per request).
import { createApiKey } from '../commands/apikey/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { ALL_SCOPES } from '../commands/shared/scopes.ts';
import { createSource } from '../commands/source/handlers.ts';
import { createTarget } from '../commands/target/handlers.ts';
import { createFlow } from '../commands/flow/handlers.ts';
import type { Booted } from '../src/boot.ts';

export interface Setup { organizationId: string; key: string; sourceId: string }

export async function setup(booted: Booted, datasets: number): Promise<Setup> {
  const { store, secrets, waiter } = booted.services;
  const now = new Date();
  const org = await createOrganization(store, { name: 'Bench org' }, now);
  const key = await createApiKey(store, { organizationId: org.id, name: 'bench', scopes: [...ALL_SCOPES], expiresAt: null }, now);
  const source = await createSource(store, { organizationId: org.id, kind: 'spreadsheet', name: 'Bench CRM' }, now);
  let last = source.position;
  for (let i = 0; i < datasets; i++) {
    const target = await createTarget(store, secrets.encryptionKey, { organizationId: org.id, datasetId: String(900_000 + i), token: 'EAAB-bench-token', mode: 'live' }, now);
    ({ position: last } = await createFlow(store, { sourceId: source.id, targetId: target.id, eventName: 'Lead', trigger: { kind: 'status', status: 'won' } }, now));
  }
  if (!(await waiter.waitFor(['access', 'setup'], last, 60_000))) throw new Error('read models did not catch up with the bench setup');
  return { organizationId: org.id, key: key.key, sourceId: source.id };
}

/** Every request a new conversion (autocannon puts a fresh id in [<id>]), each queueing one delivery per dataset. */
export const postEventBody = (sourceId: string) =>
  JSON.stringify({ source: sourceId, external_id: 'order-[<id>]', status: 'won', consent: true, email: 'buyer-[<id>]@example.com', value: 10, currency: 'PLN' });
