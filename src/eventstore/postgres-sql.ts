// The SQL of the PostgreSQL event store: append, reads and the row mapping, each taking a connection.
//
// Global order is (transaction id, row position), and readers only see transactions below the oldest
// one still running (pg_snapshot_xmin). A transaction that took a low row position but commits late is
// therefore never skipped: no event of a later transaction id becomes visible before it commits.
import { newEventId } from './ids.ts';
import type { Queryable } from '../db/pool.ts';
import {
  DuplicateEventError,
  START,
  WrongExpectedVersionError,
  type AppendRequest,
  type AppendResult,
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from './port.ts';

type ClaimKind = 'any' | 'no_stream' | 'stream_exists' | 'exact';

/** Class of the two-key advisory locks that queue writers of one stream (see claimSql). */
const STREAM_LOCK = 1163088205;

// One statement per stream: the stream row is claimed (with the expected-revision check in its
// WHERE clause) and the events inserted behind it, so a stream append is one round trip. The row
// lock on es_streams serialises writers of one stream; writers of different streams never wait.
function claimSql(kind: ClaimKind, count: string, revision: string): string {
  switch (kind) {
    case 'any':
      // Writers of one stream queue on a lock taken before any row is written: two transactions creating
      // the same stream would otherwise both take a transaction id, and the one that loses the insertion
      // and waits could hold the lower id, so its later revisions would come first in the global order.
      return `INSERT INTO es_streams (stream_id, revision)
        SELECT $1, ${count} - 1 FROM (SELECT pg_advisory_xact_lock(${STREAM_LOCK}, hashtext($1))) AS queued
        ON CONFLICT (stream_id) DO UPDATE SET revision = es_streams.revision + ${count} RETURNING revision`;
    case 'no_stream':
      return `INSERT INTO es_streams (stream_id, revision) VALUES ($1, ${count} - 1) ON CONFLICT (stream_id) DO NOTHING RETURNING revision`;
    case 'stream_exists':
      return `UPDATE es_streams SET revision = revision + ${count} WHERE stream_id = $1 RETURNING revision`;
    case 'exact':
      return `UPDATE es_streams SET revision = revision + ${count} WHERE stream_id = $1 AND revision = ${revision} RETURNING revision`;
    default: {
      const _never: never = kind;
      throw new Error(`unknown claim ${String(_never)}`);
    }
  }
}

const RETURNING = 'RETURNING transaction_id::text AS tx, global_position, stream_revision';

// Named (prepared once per connection): planning this CTE costs more than running it.
// Several events: $1 stream, $2 count, $3 ids, $4 types, $5 metadata, $6 data, $7 expected revision.
const APPEND_MANY = (kind: ClaimKind) => ({
  name: `es_append_${kind}`,
  text: `WITH claimed AS (${claimSql(kind, '$2::bigint', '$7::bigint')}),
     written AS (
       INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
       SELECT e.id, $1, claimed.revision - $2 + e.ord, e.type, e.data, $5::jsonb
       FROM claimed, unnest($3::text[], $4::text[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, ord) ${RETURNING})
     SELECT * FROM written ORDER BY stream_revision DESC LIMIT 1`,
});

// One event (most commands): $1 stream, $2 id, $3 type, $4 metadata, $5 data, $6 expected revision.
const APPEND_ONE = (kind: ClaimKind) => ({
  name: `es_append1_${kind}`,
  text: `WITH claimed AS (${claimSql(kind, '1', '$6::bigint')})
     INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
     SELECT $2, $1, claimed.revision, $3, $5::jsonb, $4::jsonb FROM claimed ${RETURNING}`,
});

function appendStatement(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision, metadata: EventMetadata) {
  const kind: ClaimKind = typeof expectedRevision === 'bigint' ? 'exact' : expectedRevision;
  // Only the exact form has the revision parameter: PostgreSQL refuses parameters it cannot type.
  const revision = typeof expectedRevision === 'bigint' ? [expectedRevision.toString()] : [];
  if (events.length === 1) {
    const [e] = events;
    return { ...APPEND_ONE(kind), values: [stream, e.id ?? newEventId(), e.type, JSON.stringify(metadata), JSON.stringify(e.data ?? null), ...revision] };
  }
  return {
    ...APPEND_MANY(kind),
    values: [
      stream,
      events.length,
      events.map((e) => e.id ?? newEventId()),
      events.map((e) => e.type),
      JSON.stringify(metadata),
      events.map((e) => JSON.stringify(e.data ?? null)),
      ...revision,
    ],
  };
}

// created_at comes as ISO 8601 text: parsing a timestamp into a Date and printing it back costs more
// per row than anything else in a catch-up read.
const COLUMNS = `transaction_id::text AS tx, global_position, event_id, stream_id, stream_revision, event_type, data, metadata,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

interface EventRow {
  tx: string;
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  event_type: string;
  data: unknown;
  /** null when read without it (ReadAllOptions.dataKeys). */
  metadata: EventMetadata | null;
  created_at: string;
}

/** The metadata of an event read without it (ReadAllOptions.dataKeys). */
const NO_METADATA: EventMetadata = Object.freeze({ organizationId: null });

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The data column for ReadAllOptions.dataKeys: the keys named, as json built as text (no jsonb to assemble),
 * for the types named; other types' data whole.
 */
function dataColumn(dataKeys: Readonly<Record<string, readonly string[]>>, whole: string): string {
  const cases = Object.entries(dataKeys).map(([type, keys]) =>
    `WHEN ${literal(type)} THEN json_build_object(${keys.map((k) => `${literal(k)}, data -> ${literal(k)}`).join(', ')})`);
  return `CASE event_type ${cases.join(' ')} ELSE (${whole})::json END`;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.event_type,
    stream: row.stream_id,
    revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
    data: row.data,
    metadata: row.metadata ?? NO_METADATA,
    createdAt: row.created_at,
  };
}

/** Append one stream's events through the connection given (pool, or a transaction the caller owns). */
export async function appendOn(db: Queryable, { stream, events, expectedRevision }: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
  if (events.length === 0) throw new Error('append needs at least one event');
  let rows: { tx: string; global_position: string; stream_revision: string }[];
  try {
    ({ rows } = await db.query<{ tx: string; global_position: string; stream_revision: string }>(appendStatement(stream, events, expectedRevision, metadata)));
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
  const { rows } = await db.query<EventRow>({
    name: `es_read_stream_${backwards ? 'backwards' : 'forwards'}`,
    text: `SELECT ${COLUMNS} FROM es_events
     WHERE stream_id = $1 AND stream_revision ${backwards ? '<=' : '>='} $2
     ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
    values: [stream, from.toString(), options.maxCount ?? null],
  });
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
    typeFilter = `AND event_type = ANY($${params.length})`;
  }
  let data = 'data';
  let metadata = 'metadata';
  if (options.payloadTypes) {
    params.push(options.payloadTypes);
    const n = params.length;
    data = `CASE WHEN event_type = ANY($${n}) THEN data END`;
    metadata = `CASE WHEN event_type = ANY($${n}) THEN metadata ELSE '{"organizationId":null}'::jsonb END`;
  }
  const dataKeys = options.dataKeys && Object.keys(options.dataKeys).length ? options.dataKeys : null;
  if (dataKeys) {
    data = dataColumn(dataKeys, data);
    metadata = `CASE WHEN event_type IN (${Object.keys(dataKeys).map(literal).join(', ')}) THEN NULL ELSE ${metadata} END`;
  }
  const columns = COLUMNS.replace('data, metadata', `${data} AS data, ${metadata} AS metadata`);
  const { rows } = await db.query<EventRow>({
    // Statements with dataKeys differ by their keys: not prepared under one name.
    name: dataKeys ? undefined : `es_read_all${typeFilter ? '_types' : ''}${options.payloadTypes ? '_payloads' : ''}`,
    text: `SELECT ${columns} FROM es_events
     WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
       AND transaction_id < pg_snapshot_xmin(pg_current_snapshot()) ${typeFilter}
     ORDER BY transaction_id, global_position
     LIMIT $3`,
    values: params,
  });
  return rows.map(toRecorded);
}

/** The newest position subscribers can read now (below the oldest running transaction). */
export function headPositionOn(db: Queryable): Promise<Position> {
  return newestPosition(db, 'WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())');
}

/**
 * The newest committed position, readable by subscribers yet or not: while an older transaction of the
 * cluster is open it is ahead of headPositionOn. What "everything appended so far" means to a waiter.
 */
export function committedHeadOn(db: Queryable): Promise<Position> {
  return newestPosition(db, '');
}

async function newestPosition(db: Queryable, where: string): Promise<Position> {
  const { rows } = await db.query<{ tx: string; global_position: string }>(
    `SELECT transaction_id::text AS tx, global_position FROM es_events ${where}
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
