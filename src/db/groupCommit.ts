// Group commit: callers hand in items one by one; while one group is being written, the items that
// arrive queue up and are written together in the next group. An idle writer starts at once, so a lone
// caller waits for nothing; under load, one transaction carries many callers' writes.
interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export class GroupCommit<Item, Result> {
  private queue: Waiting<Item, Result>[] = [];
  private writing = false;

  /** `write` answers one result per item, in order; if it throws, every item of the group gets the error. */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    private readonly maxGroup = 256,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
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
        this.next();
      });
  }
}
