// Group commit: callers hand in items one by one; while one group is being written, the items that
// arrive queue up and are written together in the next group. An idle writer starts at once (or, with
// `sameTurn`, once the current turn of the event loop is over, so callers woken together join one group);
// under load, one write carries many callers' items.
interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result | Promise<Result>): void;
  reject(error: unknown): void;
}

export interface GroupOptions {
  /** At most this many items a group. */
  maxGroup?: number;
  /** Start a group only after the current turn of the event loop, gathering every caller of that turn. */
  sameTurn?: boolean;
}

export class GroupCommit<Item, Result> {
  private queue: Waiting<Item, Result>[] = [];
  private writing = false;
  private scheduled = false;
  private readonly maxGroup: number;
  private readonly sameTurn: boolean;

  /**
   * `write` answers one result per item, in order (a promise for an item's result lets the next group start
   * without waiting for it); if it throws, every item of the group gets the error.
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<(Result | Promise<Result>)[]>,
    options: GroupOptions = {},
  ) {
    this.maxGroup = options.maxGroup ?? 256;
    this.sameTurn = options.sameTurn ?? false;
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled || this.queue.length === 0) return;
    if (!this.sameTurn) return this.writeGroup();
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writeGroup();
    });
  }

  private writeGroup(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const group = this.queue.splice(0, this.maxGroup);
    this.write(group.map((w) => w.item))
      .then(
        (results) => group.forEach((w, i) => w.resolve(results[i])),
        (error: unknown) => group.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.writing = false;
        this.schedule();
      });
  }
}
