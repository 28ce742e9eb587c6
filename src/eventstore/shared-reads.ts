// Reads shared by the subscriptions of one process. Every append wakes them all (a dozen projectors and
// process managers), and each would read the same new events with a query of its own: here the reads
// asked for at the same moment are answered by one query from the lowest position asked, each reader
// taking its own slice of it. A slice is always every visible event after the reader's position, up to
// where the query ended, so no reader can miss an event.
import { GroupCommit } from '../db/groupCommit.ts';
import { comparePositions, type Position, type ReadAllOptions, type RecordedEvent } from './port.ts';

interface Read {
  after: Position;
  maxCount: number;
  /** undefined: the reader wants every payload. */
  payloadTypes: readonly string[] | undefined;
}

export class SharedReads {
  // Readers woken by one append ask within the same turn of the event loop: they join one group.
  private readonly groups = new GroupCommit<Read, RecordedEvent[]>((reads) => this.readGroup(reads), { maxGroup: Infinity, sameTurn: true });

  constructor(private readonly readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>) {}

  read(after: Position, maxCount: number, payloadTypes?: readonly string[]): Promise<RecordedEvent[]> {
    return this.groups.submit({ after, maxCount, payloadTypes });
  }

  private async readGroup(reads: Read[]): Promise<(RecordedEvent[] | Promise<RecordedEvent[]>)[]> {
    const after = reads.reduce((low, r) => (comparePositions(r.after, low) < 0 ? r.after : low), reads[0].after);
    const maxCount = Math.max(...reads.map((r) => r.maxCount));
    const payloadTypes = reads.some((r) => !r.payloadTypes) ? undefined : [...new Set(reads.flatMap((r) => r.payloadTypes!))];
    const events = await this.readAll({ after, maxCount, payloadTypes });
    const ended = events.length === maxCount;
    return reads.map((r) => {
      const first = events.findIndex((e) => comparePositions(e.position, r.after) > 0);
      const mine = first < 0 ? [] : events.slice(first, first + r.maxCount);
      // The query stopped before reaching anything past this reader's position: it reads alone.
      return mine.length === 0 && ended ? this.readAll({ after: r.after, maxCount: r.maxCount, payloadTypes: r.payloadTypes }) : mine;
    });
  }
}
