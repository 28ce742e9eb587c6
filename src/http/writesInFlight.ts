// A list read for incremental sync waits for the organisation's writes already under way in this process.
//
// The specification's sync: store the time a sync starts, page to the end, then use that time as updated_since.
// That holds only when every change a page did not show carries an updated_at at or after the sync's start. A write
// stamps its events while its handler runs, but the change shows only once its read models have passed the append
// (read-your-writes, before the handler returns): a page read in between missed a change stamped earlier than the
// sync's start, and the next sync's updated_since skipped it for good. A handler that starts after the list stamps a
// later time, so the next sync finds its change; one already running is waited for (bounded).
export class WritesInFlight {
  private readonly byOrganization = new Map<string, Set<Promise<void>>>();
  /** The resources some list waits for: writes of other resources (conversions, webhooks) are not tracked. */
  private readonly watched: Set<string>;

  constructor(watched: readonly string[]) {
    this.watched = new Set(watched);
  }

  /** A write handler of the organisation starts on a route of `path`; call the answer when it has returned or failed. */
  begin(organizationId: string, path: string): () => void {
    const resource = resourceOf(path);
    if (!this.watched.has(resource)) return () => {};
    const key = `${organizationId} ${resource}`;
    let done!: () => void;
    const write = new Promise<void>((resolve) => { done = resolve; });
    const writes = this.byOrganization.get(key) ?? new Set();
    this.byOrganization.set(key, writes);
    writes.add(write);
    return () => {
      writes.delete(write);
      if (writes.size === 0 && this.byOrganization.get(key) === writes) this.byOrganization.delete(key);
      done();
    };
  }

  /** Resolves once the organisation's write handlers of `resource` running now have returned, or after timeoutMs. */
  async settled(organizationId: string, resource: string, timeoutMs = 5000): Promise<void> {
    const writes = this.byOrganization.get(`${organizationId} ${resource}`);
    if (!writes || writes.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    await Promise.race([Promise.all([...writes]), bound]);
    clearTimeout(timer);
  }
}

/** '/contacts/:id/stage' -> '/contacts'. */
const resourceOf = (path: string): string => `/${path.split('/')[1] ?? ''}`;
