// The PostgreSQL event store: one append-only table in the same database as the read models.
// Ordering and visibility rules live with the SQL in postgres-sql.ts; this class adds transactions
// and wake-ups (in-process at once, other processes through NOTIFY received by pg-listen).
import { createListener, type Listener } from '../db/listen.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { appendNewStreamsOn, type NewStreamsAppend } from './postgres-group.ts';
import { appendOn, headPositionOn, listStreamsOn, readAllOn, readStreamOn } from './postgres-sql.ts';
import { pollingSubscription } from './polling.ts';
import { SharedReads } from './shared-reads.ts';
import {
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

export const EVENTS_CHANNEL = 'es_events';
/** Safety net when a NOTIFY is lost (listener reconnecting) or an older transaction held events back. */
const POLL_MS = 500;
/** Appends within this window share one NOTIFY. */
const NOTIFY_DEBOUNCE_MS = 2;

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly wakers = new Set<() => void>();
  private listener: Listener | null = null;
  private listenerReady: Promise<void> | null = null;
  private notifyTimer: NodeJS.Timeout | null = null;
  private readonly sharedReads = new SharedReads((options) => readAllOn(this.pool, options));

  constructor(
    private readonly pool: Pool,
    private readonly connectionString: string,
  ) {}

  async append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision, metadata: EventMetadata): Promise<AppendResult> {
    const result = await appendOn(this.pool, { stream, events, expectedRevision }, metadata);
    this.announce();
    return result;
  }

  /** Atomic: every stream is appended or none. Returns the result of the last request. */
  async appendMany(requests: AppendRequest[], metadata: EventMetadata): Promise<AppendResult> {
    if (requests.length === 0) throw new Error('appendMany needs at least one request');
    if (requests.length === 1) return this.append(requests[0].stream, requests[0].events, requests[0].expectedRevision, metadata);
    const last = await withTransaction(this.pool, async (tx) => {
      let appended: AppendResult | null = null;
      for (const request of requests) appended = await appendOn(tx, request, metadata);
      return appended!;
    });
    this.announce();
    return last;
  }

  /**
   * Append inside a transaction the caller owns (a process manager writing its table and its outcome
   * together). Subscribers, in this process too, learn of it through a NOTIFY delivered at commit: woken
   * before the commit they would read nothing and be woken again.
   */
  async appendWithin(tx: Queryable, request: AppendRequest, metadata: EventMetadata): Promise<AppendResult> {
    return this.appendManyWithin(tx, [request], metadata);
  }

  /** Several streams inside the caller's transaction, with one NOTIFY. Returns the result of the last request. */
  async appendManyWithin(tx: Queryable, requests: AppendRequest[], metadata: EventMetadata): Promise<AppendResult> {
    if (requests.length === 0) throw new Error('appendManyWithin needs at least one request');
    let last: AppendResult | null = null;
    for (const request of requests) last = await appendOn(tx, request, metadata);
    await tx.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
    return last!;
  }

  /**
   * Group commit inside the caller's transaction: each append of new streams is written, or answered null
   * when one of its streams is taken (nothing of it stays). One NOTIFY for the group, delivered at commit.
   */
  async appendNewStreamsWithin(tx: Queryable, appends: NewStreamsAppend[]): Promise<(AppendResult | null)[]> {
    const results = await appendNewStreamsOn(tx, appends);
    if (results.some((r) => r !== null)) await tx.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
    return results;
  }

  readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return readStreamOn(this.pool, stream, options);
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return readAllOn(this.pool, options);
  }

  headPosition(): Promise<Position> {
    return headPositionOn(this.pool);
  }

  listStreams(options: { prefix?: string; limit?: number } = {}): Promise<{ stream: string; revision: bigint }[]> {
    return listStreamsOn(this.pool, options);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    void this.ensureListener().catch((error) => options.onError?.(error));
    // Every position is read (the subscription filters by type), with payloads only where they are wanted.
    const payloadTypes = options.types?.length ? options.types : options.payloadTypes;
    const read = (after: Position, maxCount: number) => this.sharedReads.read(after, maxCount, payloadTypes);
    const source = {
      onWake: (callback: () => void) => {
        this.wakers.add(callback);
        return () => this.wakers.delete(callback);
      },
    };
    return pollingSubscription(read, source, options, POLL_MS);
  }

  /** Wake local subscribers now, and other processes through one debounced NOTIFY after the commit. */
  private announce(): void {
    for (const waker of this.wakers) waker();
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = null;
      this.pool.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`).catch(() => {});
    }, NOTIFY_DEBOUNCE_MS);
  }

  private ensureListener(): Promise<void> {
    if (!this.listenerReady) {
      const listener = createListener(this.connectionString);
      const wakeAll = () => {
        for (const waker of this.wakers) waker();
      };
      listener.notifications.on(EVENTS_CHANNEL, wakeAll);
      // Appends announced while the listener was reconnecting are picked up at once.
      listener.events.on('connected', wakeAll);
      this.listener = listener;
      this.listenerReady = listener.connect().then(() => listener.listenTo(EVENTS_CHANNEL)).then(() => undefined);
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

export { comparePositions, readAllOn };
