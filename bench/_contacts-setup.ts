// The contacts benches' common start: a booted service on a fresh database with the bulk contacts and leads,
// the real contacts the stage load moves, a key holding every scope, and the list paths both benches load.
import { Writable } from 'node:stream';
import { createApiKey } from '../commands/apikey/handlers.ts';
import { createOrganization } from '../commands/organization/handlers.ts';
import { ALL_SCOPES } from '../commands/shared/scopes.ts';
import { boot } from '../src/boot.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { BenchContext } from './run.ts';
import { loadBulk, realContacts } from './_contacts-data.ts';

export interface ContactsBench {
  booted: Awaited<ReturnType<typeof boot>>;
  /** The bearer key, every scope (leads:answers too: lead pages carry their answers). */
  key: string;
  /** Contacts made through the intake, for the stage load. */
  movable: string[];
  contacts: number;
  leads: number;
  /** [figure name, path] of every list the benches load, limit 100. */
  lists: [string, string][];
}

export async function setupContactsBench(ctx: BenchContext, label: string): Promise<ContactsBench> {
  const db = await ctx.freshDatabase(label);
  const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
  const booted = await boot(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }), { log: createLogger('info', {}, sink), poolSize: Number(process.env.XPOOL ?? 40) });
  await booted.startWorkers();
  const { services } = booted;
  const org = await createOrganization(services.store, { name: 'Bench org' }, new Date());
  const key = await createApiKey(services.store, { organizationId: org.id, name: 'bench', scopes: [...ALL_SCOPES], expiresAt: null }, new Date());
  await services.waiter.waitFor(['access'], key.position, 10_000);

  const contacts = Math.round(100_000 * ctx.scale);
  const leads = Math.round(200_000 * ctx.scale);
  ctx.note(`loading ${contacts} contacts and ${leads} leads into the read model`);
  await loadBulk(services.pool, org.id, contacts, leads);
  const count = Math.max(200, Math.round(3000 * ctx.scale));
  ctx.note(`making ${count} contacts with a lead through the intake (events and projection) for the stage load`);
  const movable = await realContacts(services, org.id, count);
  // Both read models the lists need (the key, the rows) must show everything so far; a busy machine may be slow.
  const head = await services.store.headPosition();
  for (let attempt = 0; !(await services.waiter.waitFor(['access', 'contacts'], head, 20_000)); attempt++) {
    if (attempt >= 5) throw new Error('the access and contacts projections did not reach the head within two minutes');
  }

  const phone = `+4860${String(Math.max(1, Math.floor(contacts / 2))).padStart(7, '0')}`;
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const lists: [string, string][] = [
    ['contacts', '/v1/contacts?limit=100'],
    ['contacts by tag', '/v1/contacts?limit=100&tag=tag-7'],
    ['contacts by campaign', '/v1/contacts?limit=100&campaign=camp-3'],
    ['contacts by phone', `/v1/contacts?limit=100&phone=${encodeURIComponent(phone)}`],
    ['leads from/to (30 days)', `/v1/leads?limit=100&from=${from}&to=${to}`],
  ];
  return { booted, key: key.key, movable, contacts, leads, lists };
}
