// A service instance for the webhook tests that need to choose its workers: the API and the projectors,
// with the webhook sender left out or built with test options (a scripted DNS). Several instances may
// share one database, as several processes of the service do.
import { loadConfig } from '../../../src/config.ts';
import { boot, type Booted } from '../../../src/boot.ts';
import { createLogger } from '../../../src/logger.ts';
import { ProjectionEngine } from '../../../src/projections/engine.ts';
import { projectors } from '../../../src/projections/all.ts';
import { WebhookSender, webhookSenderOptions, type WebhookSenderOptions } from '../../../src/processes/webhooks/worker.ts';
import { createOrganization } from '../../../commands/organization/handlers.ts';
import { createApiKey } from '../../../commands/apikey/handlers.ts';
import { ALL_SCOPES } from '../../../commands/shared/scopes.ts';
import type { Services } from '../../../src/services.ts';
import { committedHeadOn } from '../../../src/eventstore/postgres-sql.ts';
import type { Requester } from '../../support/server.ts';
import { startApp } from '../../http/support/app.ts';

export interface Harness {
  services: Services;
  newOrganization(): Promise<{ organizationId: string; key: string }>;
  request: Requester;
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startHarness(databaseUrl: string, env: Record<string, string>, sender: Partial<WebhookSenderOptions> | false): Promise<Harness> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', WEBHOOK_RETRY_SCHEDULE: '200ms,400ms', ...env });
  const log = createLogger(config.logLevel === 'silent' ? 'silent' : config.logLevel);
  // Each projector holds a connection of its own while it leads.
  const booted: Booted = await boot(config, { log, poolSize: 40 });
  const { services } = booted;
  await services.waiter.listen();
  const engine = new ProjectionEngine(services.pool, services.store, projectors, log, services.waiter);
  engine.start();
  const running = sender === false ? null : new WebhookSender(services, webhookSenderOptions(services, sender)).start();
  const app = await startApp(services);
  return {
    services,
    async newOrganization() {
      const org = await createOrganization(services.store, { name: 'Harness org' }, new Date());
      const created = await createApiKey(services.store, { organizationId: org.id, name: 'k', scopes: [...ALL_SCOPES], expiresAt: null }, new Date());
      await services.waiter.waitFor(['access'], created.position, 10_000);
      return { organizationId: org.id, key: created.key };
    },
    request: app.request,
    async settle() {
      await services.waiter.waitFor(projectors.map((p) => p.name), await committedHeadOn(services.pool), 10_000);
    },
    async stop() {
      await app.stop();
      await running?.stop();
      await engine.stop();
      await booted.shutdown();
    },
  };
}
