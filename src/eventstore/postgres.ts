// The PostgreSQL event store: one append-only table in the same database as the read models.
//
// Readers of the global order only see transactions below the oldest running one
// (pg_snapshot_xmin), ordered by (transaction id, row position). A transaction that commits late
// with a lower row position is therefore never skipped: it simply becomes visible before any
// later transaction id does.
import { randomUUID } from 'node:crypto';
import { createListener, type Listener } from '../db/listen.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import {
  START,
  WrongExpectedVersionError,
  comparePositions,
  type AppendRequest,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';


const NOTIFY_CHANNEL = 'es_events';
const POLL_MS = 500;

// One statement per stream: the stream row is claimed (with the expected-revision check in its
// WHERE clause) and the events inserted behind it, so a stream append is one round trip.
const STREAM_CLAIM: Record<'any' | 'no_stream' | 'stream_exists' | 'exact', string> = {
  any: `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1)
        ON CONFLICT (stream_id) DO UPDATE SET revision = es_streams.revision + $2::bigint RETURNING revision`,
  no_stream: `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1)
        ON CONFLICT (stream_id) DO NOTHING RETURNING revision`,
  stream_exists: `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 RETURNING revision`,
  exact: `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 AND revision = $7 RETURNING revision`,
};

function appendSql(kind: keyof typeof STREAM_CLAIM): string {
  return `WITH claimed AS (${STREAM_CLAIM[kind]})
    INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
    SELECT e.id, $1, claimed.revision - $2 + e.ord, e.type, e.data, $5::jsonb
    FROM claimed, unnest($3::text[], $4::text[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, ord)
    RETURNING transaction_id::text AS tx, global_position, stream_revision`;
}

const SELECT_COLUMNS = `transaction_id::text AS tx, global_position, event_id, stream_id, stream_revision,
  event_type, data, metadata, created_at`;

interface EventRow {
  tx: string;
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  event_type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.event_type,
    stream: row.stream_id,
    revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
  };
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly wakers = new Set<() => void>();
  private listener: Listener | null = null;
  private listenerReady: Promise<void> | null = null;
  private notifyTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly connectionString: string,
  ) {}

  async append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision, metadata: EventMetadata): Promise<AppendResult> {
    const result = await this.appendOn(this.pool, { stream, events, expectedRevision }, metadata);
    this.announce();
    return result;
  }

  async appendMany(requests: AppendRequest[], metadata: EventMetadata): Promise<AppendResult> {
    if (requests.length === 1) return this.append(requests[0].stream, requests[0].events, requests[0].expectedRevision, metadata);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      let last: AppendResult | null = null;
      for (const request of requests) last = await this.appendOn(client, request, metadata);
      await client.query('COMMIT');
      this.announce();
      if (!last) throw new Error('appendMany needs at least one request');
      return last;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Append inside a transaction the caller owns (a process manager writing its table and its outcome together). */
  async appendWithin(tx: Queryable, request: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
    const result = await this.appendOn(tx, request, metadata);
    this.announce();
    return result;
  }

  private async appendOn(db: Queryable, { stream, events, expectedRevision }: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const kind = typeof expectedRevision === 'bigint' ? 'exact' : expectedRevision;
    const params: unknown[] = [
      stream,
      events.length,
      events.map((e) => e.id ?? randomUUID()),
      events.map((e) => e.type),
      JSON.stringify(metadata),
      events.map((e) => JSON.stringify(e.data ?? null)),
    ];
    // Only the exact form has a seventh parameter: PostgreSQL refuses parameters it cannot type.
    if (typeof expectedRevision === 'bigint') params.push(expectedRevision.toString());
    const { rows } = await db.query<{ tx: string; global_position: string; stream_revision: string }>(appendSql(kind), params);
    if (rows.length === 0) {
      throw new WrongExpectedVersionError(stream, expectedRevision, await this.currentRevision(db, stream));
    }
    const last = rows[rows.length - 1];
    return {
      nextExpectedRevision: BigInt(last.stream_revision),
      position: { commit: BigInt(last.tx), prepare: BigInt(last.global_position) },
    };
  }

  private async currentRevision(db: Queryable, stream: string): Promise<bigint | null> {
    const { rows } = await db.query<{ revision: string }>('SELECT revision FROM es_streams WHERE stream_id = $1', [stream]);
    return rows.length ? BigInt(rows[0].revision) : null;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? BigInt(Number.MAX_SAFE_INTEGER) : 0n);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${SELECT_COLUMNS} FROM es_events
       WHERE stream_id = $1 AND stream_revision ${backwards ? '<=' : '>='} $2
       ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [stream, from.toString(), options.maxCount ?? null],
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return readAllOn(this.pool, options);
  }

  async headPosition(): Promise<Position> {
    const { rows } = await this.pool.query<{ tx: string; global_position: string }>(
      `SELECT transaction_id::text AS tx, global_position FROM es_events
       WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
    );
    return rows.length ? { commit: BigInt(rows[0].tx), prepare: BigInt(rows[0].global_position) } : START;
  }

  async listStreams(options: { prefix?: string; limit?: number } = {}): Promise<{ stream: string; revision: bigint }[]> {
    const { rows } = await this.pool.query<{ stream_id: string; revision: string }>(
      `SELECT stream_id, revision FROM es_streams WHERE stream_id LIKE $1 ORDER BY stream_id LIMIT $2`,
      [`${(options.prefix ?? '').replace(/[%_\\]/g, '\\$&')}%`, options.limit ?? 1000],
    );
    return rows.map((r) => ({ stream: r.stream_id, revision: BigInt(r.revision) }));
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    let after = options.after ?? START;
    let stopped = false;
    let wake: (() => void) | null = null;
    let idleDelay = 10;
    const waker = () => wake?.();
    this.wakers.add(waker);
    void this.ensureListener().catch((error) => options.onError?.(error));

    const loop = (async () => {
      while (!stopped) {
        try {
          const batch = await readAllOn(this.pool, { after, maxCount: options.batchSize ?? 1000, types: options.types });
          if (batch.length > 0) {
            await options.onBatch(batch);
            after = batch[batch.length - 1].position;
            idleDelay = 10;
            continue;
          }
        } catch (error) {
          if (stopped) break;
          options.onError?.(error);
          idleDelay = POLL_MS;
        }
        // Nothing visible yet: wait for a wake-up, backing off towards the safety-net poll, since a
        // committed event may still sit behind an older running transaction.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => { wake = null; resolve(); }, idleDelay);
          wake = () => { clearTimeout(timer); wake = null; idleDelay = 10; resolve(); };
        });
        idleDelay = Math.min(idleDelay * 2, POLL_MS);
      }
    })();

    return {
      stop: async () => {
        stopped = true;
        this.wakers.delete(waker);
        wake?.();
        await loop;
      },
    };
  }

  /** Wake local subscribers now, and other processes through one debounced NOTIFY. */
  private announce(): void {
    for (const waker of this.wakers) waker();
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = null;
      this.pool.query(`SELECT pg_notify('${NOTIFY_CHANNEL}', '')`).catch(() => {});
    }, 2);
  }

  private ensureListener(): Promise<void> {
    // Subscribers in other processes learn of appends from the NOTIFY sent by announce().
    if (!this.listenerReady) {
      const listener = createListener(this.connectionString);
      listener.notifications.on(NOTIFY_CHANNEL, () => {
        for (const waker of this.wakers) waker();
      });
      this.listener = listener;
      this.listenerReady = listener.connect().then(() => listener.listenTo(NOTIFY_CHANNEL)).then(() => undefined);
      return this.listenerReady;
    }
    return this.listenerReady;
  }

  async close(): Promise<void> {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    this.notifyTimer = null;
    if (this.listener) await this.listener.close().catch(() => {});
    this.listener = null;
    this.listenerReady = null;
  }
}

/** Events after a position, in global order, only from transactions no older transaction can precede. */
export async function readAllOn(db: Queryable, options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
  const after = options.after ?? START;
  const tx = after.commit < 0n ? '0' : after.commit.toString();
  const params: unknown[] = [tx, after.prepare.toString(), options.maxCount ?? 1000];
  let typeFilter = '';
  if (options.types?.length) {
    params.push(options.types);
    typeFilter = 'AND event_type = ANY($4)';
  }
  const { rows } = await db.query<EventRow>(
    `SELECT ${SELECT_COLUMNS} FROM es_events
     WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${typeFilter}
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    params,
  );
  return rows.map(toRecorded);
}

export { comparePositions };
