// EventStoreDB adapter (selected by EVENTSTORE_URL), over @eventstore/db-client.
// Differences from PostgreSQL (docs/eventstore.md): appendMany runs stream by stream and stops at the
// first failure; an event id is only checked against a retried append to the same stream (the server
// acknowledges it idempotently instead of refusing it); system events ($-prefixed) are never returned.
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START as ESDB_START,
  StreamNotFoundError,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  START,
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
import { ConfigError, withoutPassword } from '../config.ts';
import { mapAppendError, toEsdbRevision, toEventData, toRecorded, unappended } from './esdb-map.ts';
import { esdbSubscription } from './esdb-subscribe.ts';

const PAGE = 500;

export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  private readonly client: EventStoreDBClient;

  constructor(url: string) {
    this.client = esdbClient(url);
  }

  async append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision, metadata: EventMetadata): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    let result;
    try {
      result = await this.client.appendToStream(stream, events.map((e) => toEventData(e, metadata)), {
        expectedRevision: toEsdbRevision(expectedRevision),
      });
    } catch (error) {
      throw mapAppendError(error, stream, expectedRevision);
    }
    const refused = unappended(result, stream, expectedRevision);
    if (refused) throw refused;
    // The result's position is the write's; read-your-writes needs the last event's exactly (and servers
    // before 22.6 return none): for several events, read that event back by its revision.
    let position = events.length === 1 ? result.position : undefined;
    position ??= (await this.readStream(stream, { fromRevision: result.nextExpectedRevision, maxCount: 1 }))[0]?.position ?? START;
    return { nextExpectedRevision: result.nextExpectedRevision, position };
  }

  /** Sequential, not atomic: stops at the first failure; earlier streams stay appended. */
  async appendMany(requests: AppendRequest[], metadata: EventMetadata): Promise<AppendResult> {
    if (requests.length === 0) throw new Error('appendMany needs at least one request');
    let last: AppendResult | null = null;
    for (const r of requests) last = await this.append(r.stream, r.events, r.expectedRevision, metadata);
    return last!;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const read = this.client.readStream(stream, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: options.fromRevision ?? (backwards ? END : ESDB_START),
      maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
    });
    try {
      return await recordedFrom(read);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /** Pages through $all from the position (the server's start is inclusive), skipping system events. */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const maxCount = options.maxCount ?? 1000;
    const wanted = options.types?.length ? new Set(options.types) : null;
    const out: RecordedEvent[] = [];
    let from: Position | null = comparePositions(after, START) <= 0 ? null : after;
    for (;;) {
      const page = await this.pageOfAll(from, FORWARDS);
      for (const { event } of page) {
        if (!event || (from && comparePositions(event.position, from) <= 0) || comparePositions(event.position, after) <= 0) continue;
        if (wanted && !wanted.has(event.type)) continue;
        out.push(event);
        if (out.length === maxCount) return out;
      }
      if (page.length < PAGE) return out;
      from = page[page.length - 1].position;
    }
  }

  async headPosition(): Promise<Position> {
    let from: Position | null = null;
    for (;;) {
      const page = await this.pageOfAll(from, BACKWARDS);
      const found = page.find((p) => p.event);
      if (found) return found.position;
      if (page.length < PAGE) return START;
      from = page[page.length - 1].position;
    }
  }

  /** One page of $all with every record's position, mapped events where they are not system events. */
  private async pageOfAll(from: Position | null, direction: typeof FORWARDS | typeof BACKWARDS) {
    const page: { position: Position; event: RecordedEvent | null }[] = [];
    const read = this.client.readAll({ fromPosition: from ?? (direction === FORWARDS ? ESDB_START : END), direction, maxCount: PAGE });
    for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
      if (!resolved.event) continue;
      page.push({ position: resolved.event.position, event: toRecorded(resolved) });
    }
    return page;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return esdbSubscription(this.client, options);
  }

  /** Stream names come from the $streams system projection, which must be enabled on the server. */
  async listStreams(options: { prefix?: string; limit?: number } = {}): Promise<{ stream: string; revision: bigint }[]> {
    const names = new Set<string>();
    try {
      for await (const resolved of this.client.readStream('$streams', { resolveLinkTos: false }) as AsyncIterable<ResolvedEvent>) {
        const link = resolved.event?.data;
        const text = link instanceof Uint8Array ? Buffer.from(link).toString('utf8') : String(link ?? '');
        const name = text.slice(text.indexOf('@') + 1);
        if (name && !name.startsWith('$') && name.startsWith(options.prefix ?? '')) names.add(name);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    const chosen = [...names].sort().slice(0, options.limit ?? 1000);
    const listed = [];
    for (const stream of chosen) {
      const [last] = await this.readStream(stream, { direction: 'backwards', maxCount: 1 });
      if (last) listed.push({ stream, revision: last.revision });
    }
    return listed;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/**
 * The client for EVENTSTORE_URL. The client itself warns about some options (tlsVerifyCert=false, a key it
 * does not know) by printing the whole connection string, password included, and refuses a bad option without
 * saying which setting held it: both come out here naming EVENTSTORE_URL, without the password.
 */
export function esdbClient(url: string): EventStoreDBClient {
  const shown = withoutPassword(url);
  const password = URL.canParse(url) ? new URL(url).password : '';
  const secrets = password ? [password, safeDecode(password)] : [];
  const hide = (text: string) => secrets.reduce((hidden, secret) => hidden.replaceAll(secret, '***'), text.replaceAll(url, shown));
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warn(...args.map((a) => (typeof a === 'string' ? hide(a) : a)));
  try {
    return EventStoreDBClient.connectionString(url);
  } catch (error) {
    throw new ConfigError(`EVENTSTORE_URL=${JSON.stringify(shown)} is not valid: ${hide((error as Error).message)}`);
  } finally {
    console.warn = warn;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

async function recordedFrom(read: AsyncIterable<ResolvedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const resolved of read) {
    const event = toRecorded(resolved);
    if (event) out.push(event);
  }
  return out;
}
