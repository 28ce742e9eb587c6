// Shared by the projection tests: a projector that records how often it applied each event (so a
// double apply or a skip shows), event writers, and reads of the read models' state.
import { migrate } from '../../src/db/migrate.ts';
import type { Client, Pool, Queryable } from '../../src/db/pool.ts';
import type { EventStore, Position, RecordedEvent } from '../../src/eventstore/port.ts';
import type { Projector } from '../../src/projections/projector.ts';

export interface CountingOptions {
  /** Called before each batch is written; may throw (a faulty projector) or wait (a crash window). */
  beforeWrite?: (tx: Client, events: RecordedEvent[]) => Promise<void>;
  /** Called after the first half of a batch is written. */
  afterHalf?: (tx: Client, events: RecordedEvent[]) => Promise<void>;
}

/**
 * Tables NAME_applied (one row per event with `times` applied: deliberately not idempotent, so a
 * replayed event shows as 2) and NAME_streams (per stream: event count, last type, sum of data.n).
 */
export function countingProjector(name: string, options: CountingOptions = {}): Projector {
  const applied = `${name}_applied`;
  const streams = `${name}_streams`;
  return {
    name,
    tables: [applied, streams],
    migrations: [{
      id: `0001_${name}`,
      sql: `CREATE TABLE IF NOT EXISTS ${applied} (event_id text PRIMARY KEY, stream text NOT NULL, revision bigint NOT NULL, times int NOT NULL);
            CREATE TABLE IF NOT EXISTS ${streams} (stream text PRIMARY KEY, events int NOT NULL, last_type text NOT NULL, total bigint NOT NULL);`,
    }],
    handles: ['Counted', 'Faulty'],
    async apply(tx, events) {
      await options.beforeWrite?.(tx, events);
      const half = Math.ceil(events.length / 2);
      await writeApplied(tx, applied, events.slice(0, half));
      await options.afterHalf?.(tx, events);
      await writeApplied(tx, applied, events.slice(half));
      await writeStreams(tx, streams, events);
    },
  };
}

async function writeApplied(tx: Queryable, table: string, events: RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO ${table} (event_id, stream, revision, times)
     SELECT id, stream, revision, 1 FROM unnest($1::text[], $2::text[], $3::bigint[]) AS e(id, stream, revision)
     ON CONFLICT (event_id) DO UPDATE SET times = ${table}.times + 1`,
    [events.map((e) => e.id), events.map((e) => e.stream), events.map((e) => e.revision.toString())],
  );
}

async function writeStreams(tx: Queryable, table: string, events: RecordedEvent[]): Promise<void> {
  const per = new Map<string, { events: number; last: string; total: number }>();
  for (const e of events) {
    const s = per.get(e.stream) ?? { events: 0, last: '', total: 0 };
    s.events++;
    s.last = e.type;
    s.total += Number((e.data as { n?: number }).n ?? 0);
    per.set(e.stream, s);
  }
  const rows = [...per.entries()];
  await tx.query(
    `INSERT INTO ${table} (stream, events, last_type, total)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[])
     ON CONFLICT (stream) DO UPDATE SET events = ${table}.events + excluded.events,
       last_type = excluded.last_type, total = ${table}.total + excluded.total`,
    [rows.map(([s]) => s), rows.map(([, v]) => v.events), rows.map(([, v]) => v.last), rows.map(([, v]) => v.total)],
  );
}

/** Append `count` Counted events in appends of `per` events over `streams` streams; returns the last position. */
export async function appendCounted(store: EventStore, count: number, options: { per?: number; streams?: number; prefix?: string } = {}): Promise<Position> {
  const per = options.per ?? 50;
  const streams = options.streams ?? 20;
  let last: Position | null = null;
  for (let i = 0; i < count; i += per) {
    const n = Math.min(per, count - i);
    const events = Array.from({ length: n }, (_, k) => ({ type: 'Counted', data: { n: i + k } }));
    last = (await store.append(`${options.prefix ?? 'c'}-${(i / per) % streams}`, events, 'any', { organizationId: 'org-p' })).position;
  }
  if (!last) throw new Error('appendCounted needs a positive count');
  return last;
}

/** Rows of a table in a stable order, for comparing read models. */
export async function tableRows(db: Queryable, table: string, orderBy: string): Promise<unknown[]> {
  return (await db.query(`SELECT * FROM ${table} ORDER BY ${orderBy}`)).rows;
}

export async function timesApplied(db: Queryable, name: string): Promise<{ events: number; maxTimes: number }> {
  const { rows } = await db.query<{ events: string; max: number | null }>(`SELECT count(*) AS events, max(times) AS max FROM ${name}_applied`);
  return { events: Number(rows[0].events), maxTimes: rows[0].max ?? 0 };
}

/** Create a test projector's tables the way the service's migrations would. */
export async function installProjectors(pool: Pool, ...projectors: Projector[]): Promise<void> {
  await migrate(pool, projectors.map((p) => ({ owner: `projector:${p.name}`, migrations: p.migrations })));
}
