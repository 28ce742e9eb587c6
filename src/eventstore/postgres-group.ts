// Group commit on PostgreSQL: many independent appends of new streams ('no_stream') in one transaction and
// three statements, whatever their number. An append whose streams are all new is written; one that finds
// a stream taken (or asked for by an earlier append of the group) is undone inside the transaction and
// answered null, so that its caller reads the stream and decides again.
import { newEventId } from './ids.ts';
import type { Queryable } from '../db/pool.ts';
import type { AppendRequest, AppendResult, EventMetadata } from './port.ts';

export interface NewStreamsAppend {
  /** Every request is appended with 'no_stream'. */
  requests: AppendRequest[];
  metadata: EventMetadata;
}

/** The appends that want a stream another append of the group asked for first. */
function crowdedOut(appends: NewStreamsAppend[]): Set<number> {
  const owner = new Map<string, number>();
  const lost = new Set<number>();
  appends.forEach((append, i) => {
    for (const { stream } of append.requests) {
      const first = owner.get(stream);
      if (first !== undefined && first !== i) lost.add(i);
      else owner.set(stream, i);
    }
  });
  return lost;
}

/** Claims the streams, sorted by name so that concurrent groups lock them in one order; returns those claimed. */
async function claimStreams(tx: Queryable, requests: AppendRequest[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ stream_id: string }>({
    name: 'es_group_claim',
    text: `INSERT INTO es_streams (stream_id, revision)
      SELECT s, c - 1 FROM unnest($1::text[], $2::bigint[]) AS x(s, c) ORDER BY s COLLATE "C"
      ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id`,
    values: [requests.map((r) => r.stream), requests.map((r) => r.events.length)],
  });
  return new Set(rows.map((r) => r.stream_id));
}

async function insertEvents(tx: Queryable, appends: NewStreamsAppend[]): Promise<Map<string, AppendResult>> {
  // One JSON parameter (a row per element, columns by position), not an array per column: pg escaped every
  // payload into an array literal, a third of what a POST /events allocated. Positions, not objects:
  // json_to_recordset hashes each object's keys and cost PostgreSQL more than the literals did.
  const rows = appends.flatMap(({ requests, metadata }) =>
    requests.flatMap((r) => r.events.map((e, revision) => [e.id ?? newEventId(), r.stream, revision, e.type, e.data ?? null, metadata])));
  const { rows: written } = await tx.query<{ tx: string; global_position: string; stream_id: string; stream_revision: string }>({
    name: 'es_group_events',
    text: `INSERT INTO es_events (event_id, stream_id, stream_revision, event_type, data, metadata)
      SELECT e->>0, e->>1, (e->>2)::bigint, e->>3, e->4, e->5 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(e, ord) ORDER BY ord
      RETURNING transaction_id::text AS tx, global_position, stream_id, stream_revision`,
    values: [JSON.stringify(rows)],
  });
  const last = new Map<string, AppendResult>();
  for (const row of written) {
    const position = { commit: BigInt(row.tx), prepare: BigInt(row.global_position) };
    const seen = last.get(row.stream_id);
    if (!seen || seen.position.prepare < position.prepare) last.set(row.stream_id, { nextExpectedRevision: BigInt(row.stream_revision), position });
  }
  return last;
}

/** Appends each group member whose streams are all new; null for the others (nothing of theirs stays). */
export async function appendNewStreamsOn(tx: Queryable, appends: NewStreamsAppend[]): Promise<(AppendResult | null)[]> {
  const crowded = crowdedOut(appends);
  const lost = new Set(crowded);
  const claimed = await claimStreams(tx, appends.filter((_, i) => !crowded.has(i)).flatMap((a) => a.requests));
  // Only a claimant that missed one of its streams gives back the others. A crowded-out member claimed nothing:
  // a stream it shares was claimed for the member that asked first, and giving it back would leave that
  // member's events in a stream without a revision (its next append failing on the unique index).
  const undo: string[] = [];
  appends.forEach((append, i) => {
    if (crowded.has(i) || append.requests.every((r) => claimed.has(r.stream))) return;
    lost.add(i);
    undo.push(...append.requests.map((r) => r.stream).filter((s) => claimed.has(s)));
  });
  if (undo.length) await tx.query('DELETE FROM es_streams WHERE stream_id = ANY($1::text[])', [undo]);
  const winners = appends.filter((_, i) => !lost.has(i));
  const written = winners.length ? await insertEvents(tx, winners) : new Map<string, AppendResult>();
  // The position of an append is that of its last event (its last request's stream).
  return appends.map((append, i) => (lost.has(i) ? null : written.get(append.requests[append.requests.length - 1].stream)!));
}
