// `npm run bench -- eventstore`: appends (ours, plain INSERTs, emmett-postgresql), subscription
// catch-up into a no-op projector, and a rebuild of a one-table projector.
import { randomUUID } from 'node:crypto';
import { getPostgreSQLEventStore, type PostgresEventStore as EmmettStore } from '@event-driven-io/emmett-postgresql';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import type { BenchContext, BenchDatabase, Figure } from './run.ts';
import { catchUpAndRebuild } from './_eventstore-read.ts';

const WRITERS = 16;
const STREAMS_PER_WRITER = 64;
const ROUNDS = 4;
const META = { organizationId: 'org-bench', correlationId: 'corr-bench', actor: 'bench' };

interface Row {
  id: string;
  stream: string;
  data: { n: number; name: string; email: string; stage: string };
}

/** One append's rows; each writer has its own streams (emmett refuses concurrent appends to one stream). */
function rows(count: number, base: number, writer: number): Row[] {
  const stream = `contact-${writer}-${base % STREAMS_PER_WRITER}`;
  return Array.from({ length: count }, (_, k) => {
    const n = base + k;
    return { id: randomUUID(), stream, data: { n, name: `Contact ${n}`, email: `c${n}@example.com`, stage: 'new' } };
  });
}

/** `total` units of work by `writers` concurrent workers; returns units per second. */
async function rate(writers: number, total: number, work: (i: number, writer: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, async (_, writer) => {
    for (let i = next++; i < total; i = next++) await work(i, writer);
  }));
  return total / ((performance.now() - started) / 1000);
}

interface Appenders {
  ours(batch: Row[]): Promise<void>;
  plain(batch: Row[]): Promise<void>;
  emmett(batch: Row[]): Promise<void>;
}

function appenders(db: BenchDatabase, store: PostgresEventStore, emmett: EmmettStore): Appenders {
  return {
    // Ids left to the store, as commands do (it makes time-ordered ones); the plain rows bring theirs.
    ours: async (batch) => {
      await store.append(batch[0].stream, batch.map((r) => ({ type: 'ContactTouched', data: r.data })), 'any', META);
    },
    // The same rows into a bare table (no keys, no indexes), one plain statement per append, same pool.
    plain: async (batch) => {
      if (batch.length === 1) {
        await db.pool.query(
          `INSERT INTO bench_plain (event_id, stream_id, stream_revision, event_type, data, metadata) VALUES ($1, $2, 0, 'ContactTouched', $3, $4)`,
          [batch[0].id, batch[0].stream, JSON.stringify(batch[0].data), JSON.stringify(META)],
        );
        return;
      }
      await db.pool.query(
        `INSERT INTO bench_plain (event_id, stream_id, stream_revision, event_type, data, metadata)
         SELECT id, $2, ord, 'ContactTouched', data, $3::jsonb FROM unnest($1::text[], $4::jsonb[]) WITH ORDINALITY AS e(id, data, ord)`,
        [batch.map((r) => r.id), batch[0].stream, JSON.stringify(META), batch.map((r) => JSON.stringify(r.data))],
      );
    },
    emmett: async (batch) => {
      await emmett.appendToStream(batch[0].stream, batch.map((r) => ({ type: 'ContactTouched', data: r.data, metadata: META })));
    },
  };
}

async function appendFigures(ctx: BenchContext, db: BenchDatabase): Promise<Figure[]> {
  await db.pool.query(`CREATE TABLE bench_plain (event_id text, stream_id text, stream_revision bigint, event_type text, data jsonb, metadata jsonb)`);
  const store = new PostgresEventStore(db.pool, db.url);
  const emmett = getPostgreSQLEventStore(db.url, { connectionOptions: { pool: db.pool } });
  const a = appenders(db, store, emmett);
  // Warm-up (emmett creates its schema on first use), then the contenders take turns in short rounds
  // and each keeps its best round: a noisy neighbour then hurts all of them alike, or none.
  const measure = async (size: number, count: number) => {
    const out: Record<keyof Appenders, number> = { ours: 0, plain: 0, emmett: 0 };
    const contenders = Object.keys(out) as (keyof Appenders)[];
    for (const k of contenders) await rate(WRITERS, 50, (i, w) => a[k](rows(size, i * size, w)));
    for (let round = 0; round < ROUNDS; round++) {
      for (const k of contenders) {
        const perSecond = await rate(WRITERS, Math.ceil(count / ROUNDS), (i, w) => a[k](rows(size, (round * count + i) * size, w)));
        out[k] = Math.max(out[k], perSecond * size);
      }
    }
    return out;
  };
  const single = ctx.scale * 20_000;
  ctx.note(`appends: ${single} single-event appends, then ${single / 100} appends of 100 events, ${WRITERS} writers, each way`);
  const one = await measure(1, single);
  const hundred = await measure(100, single / 100);
  await store.close();
  await emmett.close().catch(() => {});
  const plainOne = { name: 'plain INSERT', value: one.plain };
  const plainHundred = { name: 'plain INSERT', value: hundred.plain };
  return [
    { name: `append 1 event, ${WRITERS} writers`, value: one.ours, unit: 'events/s', baseline: plainOne, target: '>= 50%' },
    { name: `  emmett-postgresql, same`, value: one.emmett, unit: 'events/s', baseline: plainOne, target: `ours ${(one.ours / one.emmett).toFixed(1)}x emmett` },
    { name: `append 100 events, ${WRITERS} writers`, value: hundred.ours, unit: 'events/s', baseline: plainHundred, target: '>= 50%' },
    { name: `  emmett-postgresql, same`, value: hundred.emmett, unit: 'events/s', baseline: plainHundred, target: `ours ${(hundred.ours / hundred.emmett).toFixed(1)}x emmett` },
  ];
}

export async function run(ctx: BenchContext): Promise<void> {
  const appendsDb = await ctx.freshDatabase('es_appends');
  ctx.table('Event store: appends (embedded PostgreSQL, fsync off)', await appendFigures(ctx, appendsDb));
  const readsDb = await ctx.freshDatabase('es_reads');
  ctx.table('Event store: catch-up and rebuild', await catchUpAndRebuild(ctx, readsDb));
}
