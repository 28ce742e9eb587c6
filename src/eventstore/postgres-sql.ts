// The SQL of the PostgreSQL event store: append, reads and the row mapping, each taking a connection.
//
// Global order is (transaction id, row position), and readers only see transactions below the oldest
// one still running (pg_snapshot_xmin). A transaction that took a low row position but commits late is
// therefore never skipped: no event of a later transaction id becomes visible before it commits.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import {
  DuplicateEventError,
  START,
  WrongExpectedVersionError,
  type AppendRequest,
  type AppendResult,
  type EventMetadata,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './port.ts';

// One statement per stream: the stream row is claimed (with the expected-revision check in its
// WHERE clause) and the events inserted behind it, so a stream append is one round trip. The row
// lock on es_streams serialises writers of one stream; writers of different streams never wait.
const STREAM_CLAIM: Record<'any' | 'no_stream' | 'stream_exists' | 'exact', string> = {
  any: `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1)
        ON CONFLICT (stream_id) DO UPDATE SET revision = es_streams.revision + $2::bigint RETURNING revision`,
  no_stream: `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2::bigint - 1)
        ON CONFLICT (stream_id) DO NOTHING RETURNING revision`,
  stream_exists: `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 RETURNING revision`,
  exact: `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream_id = $1 AND revision = $7 RETURNING revision`,
};

const APPEND_SQL = Object.fromEntries(
  Object.entries(STREAM_CLAIM).map(([kind, claim]) => [
    kind,
    `WITH claimed AS (${claim})
     INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
     SELECT e.id, $1, claimed.revision - $2 + e.ord, e.type, e.data, $5::jsonb
     FROM claimed, unnest($3::text[], $4::text[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, ord)
     RETURNING transaction_id::text AS tx, global_position, stream_revision`,
  ]),
) as Record<keyof typeof STREAM_CLAIM, string>;

const COLUMNS = `transaction_id::text AS tx, global_position, event_id, stream_id, stream_revision,
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

/** Append one stream's events through the connection given (pool, or a transaction the caller owns). */
export async function appendOn(db: Queryable, { stream, events, expectedRevision }: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
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
  let rows: { tx: string; global_position: string; stream_revision: string }[];
  try {
    ({ rows } = await db.query<{ tx: string; global_position: string; stream_revision: string }>(APPEND_SQL[kind], params));
  } catch (error) {
    throw duplicateOrSame(error, stream);
  }
  if (rows.length === 0) {
    throw new WrongExpectedVersionError(stream, expectedRevision, await currentRevision(db, stream));
  }
  const last = rows[rows.length - 1];
  return {
    nextExpectedRevision: BigInt(last.stream_revision),
    position: { commit: BigInt(last.tx), prepare: BigInt(last.global_position) },
  };
}

/** A unique violation on event_id becomes the typed DuplicateEventError; anything else passes through. */
function duplicateOrSame(error: unknown, stream: string): unknown {
  const e = error as { code?: string; constraint?: string; detail?: string };
  if (e.code !== '23505' || e.constraint !== 'es_events_event_id_key') return error;
  const id = /\(event_id\)=\((.*)\)/.exec(e.detail ?? '')?.[1] ?? null;
  return new DuplicateEventError(stream, id);
}

async function currentRevision(db: Queryable, stream: string): Promise<bigint | null> {
  const { rows } = await db.query<{ revision: string }>('SELECT revision FROM es_streams WHERE stream_id = $1', [stream]);
  return rows.length ? BigInt(rows[0].revision) : null;
}

export async function readStreamOn(db: Queryable, stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? BigInt(Number.MAX_SAFE_INTEGER) : 0n);
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM es_events
     WHERE stream_id = $1 AND stream_revision ${backwards ? '<=' : '>='} $2
     ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
    [stream, from.toString(), options.maxCount ?? null],
  );
  return rows.map(toRecorded);
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
    `SELECT ${COLUMNS} FROM es_events
     WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${typeFilter}
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    params,
  );
  return rows.map(toRecorded);
}

export async function headPositionOn(db: Queryable): Promise<Position> {
  const { rows } = await db.query<{ tx: string; global_position: string }>(
    `SELECT transaction_id::text AS tx, global_position FROM es_events
     WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  return rows.length ? { commit: BigInt(rows[0].tx), prepare: BigInt(rows[0].global_position) } : START;
}

export async function listStreamsOn(db: Queryable, options: { prefix?: string; limit?: number } = {}): Promise<{ stream: string; revision: bigint }[]> {
  const { rows } = await db.query<{ stream_id: string; revision: string }>(
    `SELECT stream_id, revision FROM es_streams WHERE stream_id LIKE $1 ORDER BY stream_id LIMIT $2`,
    [`${(options.prefix ?? '').replace(/[%_\\]/g, '\\$&')}%`, options.limit ?? 1000],
  );
  return rows.map((r) => ({ stream: r.stream_id, revision: BigInt(r.revision) }));
}
