// Writes accepted conversions on PostgreSQL: the events and the `conversions` read model rows commit in one
// transaction, so readers see a conversion as soon as it is accepted; conversions accepted at the same
// moment share that transaction (group commit), a few statements for the whole group.
import { withTransaction, type Pool, type Queryable } from '../../src/db/pool.ts';
import { GroupCommit } from '../../src/db/groupCommit.ts';
import type { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import type { AppendRequest, EventMetadata, Position } from '../../src/eventstore/port.ts';
import type { ConversionAcceptedData } from './conversion.ts';

/** Writes the read model rows of new conversions inside the transaction that appends them. */
export type ShowConversions = (tx: Queryable, conversions: ConversionAcceptedData[]) => Promise<void>;

export interface ConversionAppend {
  requests: AppendRequest[];
  metadata: EventMetadata;
  conversion: ConversionAcceptedData;
}

export class ConversionWriter {
  private readonly groups: GroupCommit<ConversionAppend, Position | null>;

  constructor(
    private readonly pool: Pool,
    private readonly store: PostgresEventStore,
    private readonly show: ShowConversions,
  ) {
    this.groups = new GroupCommit((appends) => this.writeGroup(appends));
  }

  /** A conversion whose streams should all be new: its position, or null when one of them is taken. */
  appendNew(append: ConversionAppend): Promise<Position | null> {
    return this.groups.submit(append);
  }

  /** One conversion with any expectations (decided again after a conflict); fails as the store's append does. */
  append(append: ConversionAppend): Promise<Position> {
    return withTransaction(this.pool, async (tx) => {
      const appended = await this.store.appendManyWithin(tx, append.requests, append.metadata);
      await this.show(tx, [append.conversion]);
      return appended.position;
    });
  }

  private writeGroup(appends: ConversionAppend[]): Promise<(Position | null)[]> {
    return withTransaction(this.pool, async (tx) => {
      const results = await this.store.appendNewStreamsWithin(tx, appends);
      const written = appends.filter((_, i) => results[i] !== null).map((a) => a.conversion);
      if (written.length) await this.show(tx, written);
      return results.map((r) => r?.position ?? null);
    });
  }
}
