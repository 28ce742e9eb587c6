// Reports as of a past moment: replay the store up to that moment into temporary schemas holding the
// reporting projectors' tables, run the same report queries there, drop the schemas.
import { randomBytes } from 'node:crypto';
import type { Client, Queryable } from '../src/db/pool.ts';
import type { Services } from '../src/services.ts';
import { START, type EventStore } from '../src/eventstore/port.ts';
import type { Projector } from '../src/projections/projector.ts';
import { reportingLeadsProjector } from '../projections/reporting_leads/projector.ts';
import { reportingAdsProjector } from '../projections/reporting_ads/projector.ts';

export const REPORTING_PROJECTORS = [reportingLeadsProjector, reportingAdsProjector];

const BATCH = 5000;

/** The projector's tables in `schema`, fed with every event appended at or before `until` (store order). */
async function replayUntil(client: Client, store: EventStore, projector: Projector, schema: string, until: number): Promise<void> {
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path = ${schema}, public`);
  for (const migration of projector.migrations) await client.query(migration.sql);
  let after = START;
  for (;;) {
    // Every event's time counts for the cut, but only the projector's own events need their data.
    const read = await store.readAll({ after, maxCount: BATCH, payloadTypes: projector.handles });
    if (read.length === 0) return;
    // The log is cut at its first event past the moment: the state then was a prefix of the store.
    const cut = read.findIndex((e) => Date.parse(e.createdAt) > until);
    const batch = cut < 0 ? read : read.slice(0, cut);
    const handled = batch.filter((e) => projector.handles.includes(e.type));
    if (handled.length) {
      await client.query('BEGIN');
      await projector.apply(client, handled);
      await client.query('COMMIT');
    }
    if (cut >= 0) return;
    after = read[read.length - 1].position;
  }
}

/** The report queries run in parallel on a pool; on one connection they must queue instead. */
function serialised(client: Client): Queryable {
  let queue: Promise<unknown> = Promise.resolve();
  const query = (...args: Parameters<Client['query']>) => {
    const run = queue.then(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args));
    queue = run.catch(() => {});
    return run;
  };
  return { query } as unknown as Queryable;
}

/** Runs `work` on a connection whose search_path finds the read models as they were at `asOf`. */
export async function withReportsAsOf<T>(services: Services, asOf: Date, work: (db: Queryable) => Promise<T>): Promise<T> {
  const client = await services.pool.connect();
  const suffix = randomBytes(4).toString('hex');
  const schemas = REPORTING_PROJECTORS.map((p) => `asof_${suffix}_${p.name}`);
  try {
    for (const [i, projector] of REPORTING_PROJECTORS.entries()) {
      await replayUntil(client, services.store, projector, schemas[i], asOf.getTime());
    }
    await client.query(`SET search_path = ${schemas.join(', ')}, public`);
    return await work(serialised(client));
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    // The session's search_path was changed: never hand this connection back to the pool.
    client.release(true);
  }
}
