// A count per key of work still under way (a dataset's claims being sent, a subscription's pushes waiting for their
// answer): a key is listed while its count is above zero.
export class InFlight {
  private readonly counts = new Map<string, number>();

  add(key: string): void {
    this.counts.set(key, this.count(key) + 1);
  }

  remove(key: string): void {
    const left = this.count(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }

  private count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** The keys with work under way, each with at least `least` of it. */
  keys(least = 1): string[] {
    return [...this.counts].filter(([, n]) => n >= least).map(([key]) => key);
  }
}
