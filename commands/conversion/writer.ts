// Writes accepted conversions on PostgreSQL: the events and their read model rows (`conversions`, and the
// `delivery_queue` work table) commit in one transaction, so readers see a conversion as soon as it is
// accepted, and the events are marked so that those projectors pass over them (src/projections/live.ts).
// Conversions accepted at the same moment share that transaction (group commit): one routing read, the
// claims of their new streams, their events and their rows, a few statements for the whole group.
import { withTransaction, type Pool } from '../../src/db/pool.ts';
import { liveWriterBegin, type LiveRows } from '../../src/projections/live.ts';
import { GroupCommit } from '../../src/db/groupCommit.ts';
import type { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { AppendRequest, EventMetadata, Position } from '../../src/eventstore/port.ts';
import { routingsFor, type Routing } from '../../queries/setup.ts';
import { ApiError } from '../shared/errors.ts';
import { conversionAggregate, conversionStream, type ConversionAcceptedData } from './conversion.ts';
import { decideAcceptConversion, type AcceptResult } from './decide.ts';
import { appendRequests, prepare, routesOf } from './plan.ts';
import type { CheckedInput } from './validate.ts';

/** The read model rows of new conversions, written inside the transaction that appends them. */
export type ShowConversions = LiveRows<ConversionAcceptedData>;

export interface ConversionAppend {
  requests: AppendRequest[];
  metadata: EventMetadata;
  conversion: ConversionAcceptedData;
}

export interface NewConversion {
  checked: CheckedInput;
  now: Date;
  metadata: EventMetadata;
}

/**
 * Written, refused by a rule (the same error the lone path would throw), or null: a stream was taken or the
 * source is not in the read model yet, and the caller decides alone.
 */
export type GroupOutcome = { result: AcceptResult; position: Position } | { error: ApiError } | null;

type Planned = { result: AcceptResult; append: ConversionAppend } | { error: ApiError } | null;

/** The decision for a conversion whose streams are all new, as the lone path's first attempt makes it. */
function plan({ checked, now, metadata }: NewConversion, routing: Routing, projected: readonly string[]): Planned {
  if (!routing.source) return null;
  try {
    const conversion = prepare(checked, routing, now);
    const decision = decideAcceptConversion(conversionAggregate.initialState(), { conversion, source: routing.source, routes: routesOf(conversion, routing), reserved: new Set() });
    const append = { requests: appendRequests(conversionStream(conversion.eventId), decision), metadata: { ...metadata, projected }, conversion: decision.events[0].data };
    return { result: decision.result, append };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    throw error;
  }
}

export class ConversionWriter {
  private readonly groups: GroupCommit<NewConversion, GroupOutcome>;
  private readonly begin: string;

  constructor(
    private readonly pool: Pool,
    private readonly store: PostgresEventStore,
    private readonly show: ShowConversions,
  ) {
    this.groups = new GroupCommit((conversions) => this.writeGroup(conversions));
    this.begin = liveWriterBegin(show.projectors);
  }

  /** A new conversion, with the others of the moment. */
  accept(conversion: NewConversion): Promise<GroupOutcome> {
    return this.groups.submit(conversion);
  }

  /** One conversion with any expectations (decided again after a conflict); fails as the store's append does. */
  append(append: ConversionAppend): Promise<Position> {
    return withTransaction(this.pool, async (tx) => {
      const appended = await this.store.appendManyWithin(tx, append.requests, { ...append.metadata, projected: this.show.projectors });
      await this.show.write(tx, [append.conversion]);
      return appended.position;
    }, this.begin);
  }

  private writeGroup(conversions: NewConversion[]): Promise<GroupOutcome[]> {
    return withTransaction(this.pool, async (tx) => {
      const keys = conversions.map(({ checked: c }) => ({ organizationId: c.organizationId, sourceId: c.sourceId, trigger: { kind: c.trigger.kind, value: c.trigger.kind === 'status' ? c.trigger.status : c.trigger.stage } }));
      const routings = await routingsFor(tx, keys);
      const planned = conversions.map((c, i) => plan(c, routings[i], this.show.projectors));
      const appending = planned.filter((p) => p !== null && 'append' in p);
      const results = await this.store.appendNewStreamsWithin(tx, appending.map((p) => p.append));
      const written = appending.filter((_, i) => results[i] !== null);
      if (written.length) await this.show.write(tx, written.map((p) => p.append.conversion));
      const positions = new Map(appending.map((p, i) => [p, results[i]?.position ?? null]));
      return planned.map((p) => {
        if (p === null || 'error' in p) return p;
        const position = positions.get(p);
        return position ? { result: p.result, position } : null;
      });
    }, this.begin);
  }
}
