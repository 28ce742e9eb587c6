// The event store port: what commands, projectors and process managers may ask of any event store.

/** Who and what caused an event; stored beside every event. */
export interface EventMetadata {
  organizationId: string | null;
  correlationId?: string;
  causationId?: string;
  /** "key:<id>", "operator", "worker:<name>", "platform" ... */
  actor?: string;
  /** The Idempotency-Key claim of the request that appended the event (src/http/idempotency.ts). */
  idempotencyClaim?: string;
  /**
   * Projectors whose rows for these events were written in the transaction that appended them: live,
   * those projectors pass over the events; a rebuild applies them (src/projections/live.ts).
   */
  projected?: readonly string[];
}

/** An event as a command produces it, before the store gives it a place. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  /** Optional: a deterministic id lets the store refuse the same event twice. */
  id?: string;
}

/**
 * A place in the global order. PostgreSQL: commit = transaction id, prepare = row position;
 * EventStoreDB: its own commit and prepare positions. Compared lexicographically.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToJson(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function positionFromJson(s: string): Position {
  const [commit, prepare] = s.split('/');
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  id: string;
  type: Type;
  stream: string;
  /** 0-based revision of the event within its stream. */
  revision: bigint;
  position: Position;
  data: Data;
  metadata: EventMetadata;
  /** ISO 8601 */
  createdAt: string;
}

/**
 * Expected revision of the stream before the append:
 * 'any', 'no_stream' (must not exist), 'stream_exists', or the exact revision of its last event.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface AppendResult {
  /** Revision of the last event written. */
  nextExpectedRevision: bigint;
  /** Position of the last event written (what read-your-writes waits for). */
  position: Position;
}

export interface AppendRequest {
  stream: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | null,
  ) {
    super(`wrong expected version on ${stream}: expected ${String(expected)}, actual ${actual === null ? 'no stream' : actual}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/** An event id the store already holds: the same event is never stored twice. */
export class DuplicateEventError extends Error {
  constructor(
    readonly stream: string,
    /** The duplicated id when the store names it. */
    readonly eventId: string | null,
  ) {
    super(`event ${eventId ?? '(id not reported)'} already exists (append to ${stream})`);
    this.name = 'DuplicateEventError';
  }
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Revision to start from (inclusive). Default: the first (forwards) or last (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Default START. */
  after?: Position;
  maxCount?: number;
  /** Only these event types (the store may filter server-side). */
  types?: readonly string[];
  /**
   * Events of other types still come (so a reader's position moves over them) but may come without
   * their data and metadata: a projector reads every position yet parses only what it applies.
   */
  payloadTypes?: readonly string[];
  /**
   * Per event type, the only data keys the reader uses: events of a type named come with just those keys
   * (one the event lacks reads as null) and without metadata; other types come whole. For a replay that
   * reads much and uses little (a reporting rebuild): less for the store to send and the reader to parse.
   * A store may ignore it.
   */
  dataKeys?: Readonly<Record<string, readonly string[]>>;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface SubscribeOptions extends ReadAllOptions {
  /** Called with each batch in global order; the next batch waits for the promise. */
  onBatch(events: RecordedEvent[]): Promise<void>;
  onError?(error: unknown): void;
  batchSize?: number;
}

export interface EventStore {
  readonly kind: 'postgres' | 'esdb';
  append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision, metadata: EventMetadata): Promise<AppendResult>;
  /**
   * Several streams at once. Atomic on PostgreSQL; on EventStoreDB the appends run in order and
   * stop at the first failure (documented in docs/eventstore.md).
   */
  appendMany(requests: AppendRequest[], metadata: EventMetadata): Promise<AppendResult>;
  /** Events of one stream; [] when it does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event visible to readers (START when empty). */
  headPosition(): Promise<Position>;
  /** Catch up from options.after, then follow live, in global order, without gaps or duplicates. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /** Stream names with their last revision (operator listing). */
  listStreams(options?: { prefix?: string; limit?: number }): Promise<{ stream: string; revision: bigint }[]>;
  close(): Promise<void>;
}
