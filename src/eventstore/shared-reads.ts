// Reads shared by the subscriptions of one process. Every append wakes them all (a dozen projectors and
// process managers), and each would read the same new events with a query of its own: here the reads
// asked for at the same moment are answered by one query from the lowest position asked, each reader
// taking its own slice of it. A slice is always every visible event after the reader's position, up to
// where the query ended, so no reader can miss an event.
import { comparePositions, type Position, type ReadAllOptions, type RecordedEvent } from './port.ts';

interface Waiting {
  after: Position;
  maxCount: number;
  /** undefined: the reader wants every payload. */
  payloadTypes: readonly string[] | undefined;
  resolve(events: RecordedEvent[]): void;
  reject(error: unknown): void;
}

export class SharedReads {
  private waiting: Waiting[] = [];
  private reading = false;
  private scheduled = false;

  constructor(private readonly readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>) {}

  read(after: Position, maxCount: number, payloadTypes?: readonly string[]): Promise<RecordedEvent[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ after, maxCount, payloadTypes, resolve, reject });
      this.schedule();
    });
  }

  /** Readers woken by one append ask within the same turn of the event loop: let them all join. */
  private schedule(): void {
    if (this.reading || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.readGroup();
    });
  }

  private async readGroup(): Promise<void> {
    if (this.reading || this.waiting.length === 0) return;
    this.reading = true;
    const group = this.waiting.splice(0);
    const after = group.reduce((low, w) => (comparePositions(w.after, low) < 0 ? w.after : low), group[0].after);
    const maxCount = Math.max(...group.map((w) => w.maxCount));
    const payloadTypes = group.some((w) => !w.payloadTypes) ? undefined : [...new Set(group.flatMap((w) => w.payloadTypes!))];
    try {
      const events = await this.readAll({ after, maxCount, payloadTypes });
      const ended = events.length === maxCount;
      for (const w of group) {
        const first = events.findIndex((e) => comparePositions(e.position, w.after) > 0);
        const mine = first < 0 ? [] : events.slice(first, first + w.maxCount);
        // The query stopped before reaching anything past this reader's position: it reads alone.
        if (mine.length === 0 && ended) this.readAll({ after: w.after, maxCount: w.maxCount, payloadTypes: w.payloadTypes }).then(w.resolve, w.reject);
        else w.resolve(mine);
      }
    } catch (error) {
      for (const w of group) w.reject(error);
    } finally {
      this.reading = false;
      this.schedule();
    }
  }
}
