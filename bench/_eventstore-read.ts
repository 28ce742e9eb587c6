// Read side of the event store bench: subscription catch-up into a no-op projector and a rebuild of a
// one-table projector, each beside the plainest SQL doing the same reads (and writes).
import { migrate } from '../src/db/migrate.ts';
import type { Queryable } from '../src/db/pool.ts';
import { createLogger } from '../src/logger.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { ProjectionEngine } from '../src/projections/engine.ts';
import type { Projector } from '../src/projections/projector.ts';
import { rebuildProjector } from '../src/projections/rebuild.ts';
import { CheckpointWaiter } from '../src/projections/waiter.ts';
import type { BenchContext, BenchDatabase, Figure } from './run.ts';

const CHUNK = 20_000;
const STREAMS = 10_000;

/** Fill es_events with `total` events, one transaction per chunk (so transaction ids vary as in life). */
async function seed(db: BenchDatabase, total: number): Promise<void> {
  for (let from = 0; from < total; from += CHUNK) {
    await db.pool.query(
      `INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
       SELECT gen_random_uuid()::text, 'contact-' || (i % ${STREAMS}), i / ${STREAMS}, 'ContactTouched',
              jsonb_build_object('n', i, 'name', 'Contact ' || i, 'email', 'c' || i || '@example.com', 'stage', 'new'),
              '{"organizationId":"org-bench","correlationId":"corr-bench","actor":"bench"}'::jsonb
       FROM generate_series($1::bigint, $2::bigint) AS i`,
      [from, Math.min(from + CHUNK, total) - 1],
    );
  }
  await db.pool.query(`INSERT INTO es_streams (stream_id, revision) SELECT stream_id, max(stream_revision) FROM es_events GROUP BY stream_id`);
  await db.pool.query('VACUUM ANALYZE es_events');
}


/** One table, one upsert per batch: events per stream and the last n seen. */
function countsProjector(table: string): Projector {
  return {
    name: table,
    tables: [table],
    migrations: [{ id: `0001_${table}`, sql: `CREATE TABLE IF NOT EXISTS ${table} (stream text PRIMARY KEY, events int NOT NULL, last_n bigint NOT NULL)` }],
    handles: ['ContactTouched'],
    apply: (tx, events) => upsertCounts(tx, table, events.map((e) => ({ stream: e.stream, n: (e.data as { n: number }).n }))),
  };
}

async function upsertCounts(db: Queryable, table: string, events: { stream: string; n: number }[]): Promise<void> {
  const per = new Map<string, { events: number; last: number }>();
  for (const e of events) {
    const s = per.get(e.stream) ?? { events: 0, last: 0 };
    s.events++;
    s.last = e.n;
    per.set(e.stream, s);
  }
  const list = [...per.entries()];
  await db.query(
    `INSERT INTO ${table} (stream, events, last_n) SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[])
     ON CONFLICT (stream) DO UPDATE SET events = ${table}.events + excluded.events, last_n = excluded.last_n`,
    [list.map(([s]) => s), list.map(([, v]) => v.events), list.map(([, v]) => v.last)],
  );
}

/** The baseline reader: keyset pages in the store's order, straight from the table (no visibility rule). */
async function plainScan(db: BenchDatabase, page: number, each: (rows: { stream_id: string; data: { n: number } }[]) => Promise<void>): Promise<void> {
  let after = ['0', '0'];
  for (;;) {
    const { rows } = await db.pool.query<{ tx: string; global_position: string; stream_id: string; data: { n: number } }>(
      `SELECT transaction_id::text AS tx, global_position, event_id, stream_id, stream_revision, event_type, data, metadata, created_at
       FROM es_events WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT $3`,
      [after[0], after[1], page],
    );
    if (rows.length === 0) return;
    await each(rows);
    const last = rows[rows.length - 1];
    after = [last.tx, last.global_position];
  }
}

const perSecond = (events: number, started: number) => events / ((performance.now() - started) / 1000);

async function catchUp(db: BenchDatabase, store: PostgresEventStore, total: number, name: string): Promise<number> {
  const noop: Projector = { name, tables: [], migrations: [], handles: ['ContactTouched'], apply: async () => {} };
  const waiter = new CheckpointWaiter(db.pool, null);
  const engine = new ProjectionEngine(db.pool, store, [noop], createLogger('silent'), waiter);
  const head = await store.headPosition();
  const started = performance.now();
  engine.start();
  const reached = await waiter.waitFor([noop.name], head, 600_000);
  const rate = perSecond(total, started);
  await engine.stop();
  await waiter.close();
  if (!reached) throw new Error('catch-up did not reach the head');
  return rate;
}

export async function catchUpAndRebuild(ctx: BenchContext, db: BenchDatabase): Promise<Figure[]> {
  const total = Math.round(ctx.scale * 1_000_000);
  ctx.note(`seeding ${total} events`);
  await seed(db, total);
  const store = new PostgresEventStore(db.pool, db.url);

  // Two runs each, best kept (see the appends): the baseline scan, then a fresh no-op projector.
  let plainRead = 0;
  let ours = 0;
  for (let run = 0; run < 2; run++) {
    const started = performance.now();
    await plainScan(db, 1000, async () => {});
    plainRead = Math.max(plainRead, perSecond(total, started));
    ours = Math.max(ours, await catchUp(db, store, total, `bench_noop_${run}`));
  }

  const counts = countsProjector('bench_counts');
  await migrate(db.pool, [{ owner: 'projector:bench_counts', migrations: counts.migrations }]);
  await db.pool.query('CREATE TABLE bench_counts_plain (stream text PRIMARY KEY, events int NOT NULL, last_n bigint NOT NULL)');
  let started = performance.now();
  await plainScan(db, 5000, (rows) => upsertCounts(db.pool, 'bench_counts_plain', rows.map((r) => ({ stream: r.stream_id, n: r.data.n }))));
  const plainRebuild = perSecond(total, started);
  started = performance.now();
  await rebuildProjector(db.pool, store, counts);
  const rebuild = perSecond(total, started);
  await store.close();

  return [
    { name: `catch-up, no-op projector, ${total} events`, value: ours, unit: 'events/s', baseline: { name: 'plain keyset SELECT', value: plainRead }, target: '>= 50,000 events/s' },
    { name: `rebuild, one-table projector, ${total} events`, value: rebuild, unit: 'events/s', baseline: { name: 'plain SELECT + same upserts', value: plainRebuild }, target: '>= 20,000 events/s' },
  ];
}


