// Composition root: database, migrations, event store, projections, process managers.
// Used by the server (src/main.ts), the operator CLI and the test harness.
import { ConfigError, type Config } from './config.ts';
import { createPool } from './db/pool.ts';
import { startEmbeddedPostgres, type ClusterOwner, type EmbeddedDatabase } from './db/embedded.ts';
import { migrateAll } from './db/schema.ts';
import { loadSecrets } from './db/secrets.ts';
import { StreamLocks } from './db/streamLocks.ts';
import { createLogger, type Logger } from './logger.ts';
import type { EventStore } from './eventstore/port.ts';
import { PostgresEventStore } from './eventstore/postgres.ts';
import { ProjectionEngine } from './projections/engine.ts';
import { projectors } from './projections/all.ts';
import { CheckpointWaiter } from './projections/waiter.ts';
import { processes } from './processes/all.ts';
import type { Services } from './services.ts';
import { ConversionWriter } from '../commands/conversion/writer.ts';
import { conversionsProjector, insertConversions } from '../projections/conversions/projector.ts';
import { deliveryQueueProjector, queueDeliveries } from '../projections/delivery_queue/projector.ts';
import type { ShowConversions } from '../commands/conversion/writer.ts';

export interface Booted {
  services: Services;
  /** Start projectors and process managers in this process. */
  startWorkers(): Promise<void>;
  /** Stop workers, close connections, stop the embedded PostgreSQL when this process started it. */
  shutdown(): Promise<void>;
}

/** The first contact with a database or event store: a failure says which one and where, never with its password. */
async function reach<T>(what: string, url: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    const { host, pathname } = new URL(url);
    throw new ConfigError(`cannot reach ${what} at ${host}${pathname}: ${(error as Error).message}`);
  }
}

async function openEventStore(config: Config, pool: Services['pool'], url: string): Promise<EventStore> {
  if (!config.eventstoreUrl) return new PostgresEventStore(pool, url);
  const { EsdbEventStore } = await import('./eventstore/esdb.ts');
  const store = new EsdbEventStore(config.eventstoreUrl);
  await reach('EventStoreDB', config.eventstoreUrl, () => store.readAll({ maxCount: 1 })).catch(async (error) => {
    await store.close();
    throw error;
  });
  return store;
}

/** What POST /events writes with its events: the conversion's rows and its queued deliveries. */
const showConversions: ShowConversions = {
  projectors: [conversionsProjector.name, deliveryQueueProjector.name],
  async write(tx, conversions) {
    await insertConversions(tx, conversions);
    await queueDeliveries(tx, conversions);
  },
};

export interface BootOptions {
  log?: Logger;
  fastEmbedded?: boolean;
  poolSize?: number;
  /** The service: refuses an embedded cluster another live server started (src/db/embedded.ts; the CLI joins it). */
  exclusiveEmbedded?: boolean;
  /** Who stops an embedded cluster this boot starts (src/db/embedded.ts); default the server. */
  embeddedOwner?: ClusterOwner;
  /** Told while the embedded cluster is another process's to wait for; default the log. */
  onDatabaseWait?: (message: string) => void;
}

export async function boot(config: Config, options: BootOptions = {}): Promise<Booted> {
  const log = options.log ?? createLogger(config.logLevel === 'silent' ? 'silent' : config.logLevel);
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, {
      fast: options.fastEmbedded, owner: options.embeddedOwner, exclusive: options.exclusiveEmbedded,
      log: (line) => log.debug('postgres', { line: line.trim() }),
      notice: options.onDatabaseWait ?? ((message) => log.info(message)),
      problem: (message) => log.error(message),
    });
    url = embedded.url;
  }
  // Each projector's leader keeps one connection for its session lock and batches; requests and process
  // managers share the rest.
  const pool = createPool(url, options.poolSize ?? projectors.length + 24);
  await reach('the database', url, () => pool.query('SELECT 1')).catch(async (error) => {
    await pool.end();
    await embedded?.stop();
    throw error;
  });
  await migrateAll(pool, (message, fields) => log.info(message, fields));
  const store = await openEventStore(config, pool, url);
  const waiter = new CheckpointWaiter(pool, url);
  const secrets = await loadSecrets(pool, config.secretKey);
  const conversionWriter = store instanceof PostgresEventStore ? new ConversionWriter(pool, store, showConversions) : null;
  const streamLocks = new StreamLocks(url);
  const services: Services = { config, pool, store, log, waiter, secrets, conversionWriter, streamLocks, now: () => new Date() };

  let stopEngine: (() => Promise<void>) | null = null;
  const stopProcesses: (() => Promise<void>)[] = [];
  const stopping = (stop: () => Promise<void>) => stop().catch((error) => log.error('stop failed', { error }));
  return {
    services,
    async startWorkers() {
      await waiter.listen();
      const engine = new ProjectionEngine(pool, store, projectors, log, waiter);
      engine.start();
      stopEngine = () => engine.stop();
      for (const process of processes) {
        const running = process.start(services);
        stopProcesses.push(() => running.stop());
      }
    },
    async shutdown() {
      // Workers first, then connections, then the database itself. The process managers stop claiming all at once
      // and finish their batch; a platform or webhook call still waiting after SHUTDOWN_GRACE is aborted, so the
      // stop takes that long at most. The projectors stop last (the others' outcomes are events to project).
      await Promise.all(stopProcesses.map(stopping));
      if (stopEngine) await stopping(stopEngine);
      await waiter.close();
      await store.close();
      await streamLocks.close();
      await pool.end();
      await embedded?.stop();
    },
  };
}
