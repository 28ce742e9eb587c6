// What the composition root hands to routes, commands handlers, process managers and the CLI.
import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import type { ServiceSecrets } from './db/secrets.ts';
import type { EventStore } from './eventstore/port.ts';
import type { Logger } from './logger.ts';
import type { CheckpointWaiter } from './projections/waiter.ts';
import type { StreamLocks } from './db/streamLocks.ts';
import type { ConversionWriter } from '../commands/conversion/writer.ts';

export interface Services {
  config: Config;
  pool: Pool;
  store: EventStore;
  log: Logger;
  waiter: CheckpointWaiter;
  secrets: ServiceSecrets;
  /** PostgreSQL only: conversions and their read model rows in one transaction, grouped under load. */
  conversionWriter: ConversionWriter | null;
  /** Turns on streams that hold across processes (a contact's card: commands/contact/writes.ts, inCardTurn). */
  streamLocks: StreamLocks;
  /** The clock, injectable for tests; commands receive `now` from it rather than reading it. */
  now(): Date;
}
