// Translation between the port and @eventstore/db-client: expected revisions, errors, ids, metadata,
// positions and recorded events.
import { createHash } from 'node:crypto';
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  jsonEvent,
  type AppendExpectedRevision,
  type EventData,
  type JSONType,
  type ResolvedEvent as EsdbResolvedEvent,
  type AllStreamResolvedEvent,
} from '@eventstore/db-client';
import { newEventId } from './ids.ts';
import { WrongExpectedVersionError, type EventMetadata, type ExpectedRevision, type NewEvent, type Position, type RecordedEvent } from './port.ts';

export function toEsdbRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (typeof expected === 'bigint') return expected;
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default: {
      const _never: never = expected;
      throw new Error(`unknown expected revision ${String(_never)}`);
    }
  }
}

/** The client's wrong-expected-version error becomes the port's; anything else passes through. */
export function mapAppendError(error: unknown, stream: string, expected: ExpectedRevision): unknown {
  if (!(error instanceof EsdbWrongExpectedVersionError)) return error;
  const actual = error.actualVersion;
  return new WrongExpectedVersionError(stream, expected, typeof actual === 'bigint' ? actual : null);
}

/**
 * An append the client answered without throwing but did not make: with `throwOnAppendFailure=false` in the
 * connection string a wrong expected version comes back as `success: false`, not as an error.
 */
export function unappended(result: { success: boolean; nextExpectedRevision: bigint }, stream: string, expected: ExpectedRevision): WrongExpectedVersionError | null {
  if (result.success) return null;
  return new WrongExpectedVersionError(stream, expected, result.nextExpectedRevision >= 0n ? result.nextExpectedRevision : null);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** EventStoreDB ids are UUIDs: other ids map to a name-based UUID (v5 layout) and travel in metadata. */
export function esdbEventId(id: string): string {
  if (UUID.test(id)) return id.toLowerCase();
  const hash = createHash('sha1').update(`event:${id}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Stored metadata: the port's fields, the server's own correlation names, and a non-UUID event id. */
interface StoredMetadata extends EventMetadata {
  $correlationId?: string;
  $causationId?: string;
  eventId?: string;
}

export function toEventData(event: NewEvent, metadata: EventMetadata): EventData {
  const stored: StoredMetadata = { ...metadata };
  if (metadata.correlationId) stored.$correlationId = metadata.correlationId;
  if (metadata.causationId) stored.$causationId = metadata.causationId;
  // Generated ids are the PostgreSQL store's (UUIDv7); an id the server would not keep as given (not a
  // UUID, or one in capitals: the server answers it in lower case) travels in the metadata.
  const id = event.id ?? newEventId();
  if (esdbEventId(id) !== id) stored.eventId = id;
  return jsonEvent({
    id: esdbEventId(id),
    type: event.type,
    data: (event.data ?? null) as JSONType,
    metadata: stored as unknown as JSONType,
  });
}

function readMetadata(raw: unknown): { metadata: EventMetadata; eventId: string | undefined } {
  const stored = (raw && typeof raw === 'object' && !(raw instanceof Uint8Array) ? raw : {}) as StoredMetadata;
  // Every field of the port comes back as it was appended (idempotencyClaim and projected too, as on
  // PostgreSQL); only what this adapter added for the server is taken off.
  const { $correlationId: _correlation, $causationId: _causation, eventId, ...rest } = stored;
  return { metadata: { ...rest, organizationId: rest.organizationId ?? null }, eventId };
}

/** Data the client did not parse (not written as JSON, e.g. by another application): JSON when it reads as JSON. */
function readData(data: Uint8Array): unknown {
  const text = Buffer.from(data).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function isSystemType(type: string): boolean {
  return type.startsWith('$');
}

/** A resolved event as the port's RecordedEvent; null for links and system events. */
export function toRecorded(resolved: EsdbResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const e = resolved.event;
  if (!e || isSystemType(e.type) || e.streamId.startsWith('$')) return null;
  const position: Position = e.position ?? { commit: resolved.commitPosition ?? -1n, prepare: resolved.commitPosition ?? -1n };
  const data = e.isJson ? e.data : readData(e.data as Uint8Array);
  const { metadata, eventId } = readMetadata(e.metadata);
  return {
    id: eventId ?? e.id,
    type: e.type,
    stream: e.streamId,
    revision: e.revision,
    position,
    data,
    metadata,
    createdAt: e.created.toISOString(),
  };
}
