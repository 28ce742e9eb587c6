// Read-your-writes: wait until named projectors have passed a position, bounded by a time-out.
// Positions arrive from local runners directly and from other processes through NOTIFY.
import { createListener, type Listener } from '../db/listen.ts';
import type { Queryable } from '../db/pool.ts';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { CHECKPOINT_CHANNEL, listStatuses } from './checkpoints.ts';

interface Waiting {
  names: readonly string[];
  position: Position;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

export class CheckpointWaiter {
  private readonly known = new Map<string, Position>();
  private readonly waiting = new Set<Waiting>();
  private listener: Listener | null = null;
  private loaded: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly connectionString: string | null,
  ) {}

  /** Listen for checkpoints written by other processes. */
  async listen(): Promise<void> {
    if (!this.connectionString || this.listener) return;
    const listener = createListener(this.connectionString);
    listener.notifications.on(CHECKPOINT_CHANNEL, (payload: string) => {
      const [name, pos] = payload.split(' ');
      const [commit, prepare] = pos.split('/');
      this.advance(name, { commit: BigInt(commit), prepare: BigInt(prepare) });
    });
    // After a reconnect, checkpoints written while disconnected are read from the table.
    listener.events.on('connected', () => {
      if (this.listener) this.loaded = this.loadKnown().catch(() => {});
    });
    await listener.connect();
    await listener.listenTo(CHECKPOINT_CHANNEL);
    this.listener = listener;
  }

  advance(name: string, position: Position): void {
    const current = this.known.get(name);
    if (current && comparePositions(current, position) >= 0) return;
    this.known.set(name, position);
    for (const w of this.waiting) if (this.reached(w.names, w.position)) this.settle(w, true);
  }

  /** Resolves true once every named projector passed the position, false on time-out. */
  async waitFor(names: readonly string[], position: Position, timeoutMs = 2000): Promise<boolean> {
    // A failed load is retried by the next caller; meanwhile NOTIFYs still advance the positions.
    this.loaded ??= this.loadKnown().catch(() => { this.loaded = null; });
    await this.loaded;
    if (this.reached(names, position)) return true;
    return new Promise<boolean>((resolve) => {
      const waiting: Waiting = { names, position, resolve, timer: setTimeout(() => this.settle(waiting, false), timeoutMs) };
      this.waiting.add(waiting);
    });
  }

  private reached(names: readonly string[], position: Position): boolean {
    return names.every((n) => {
      const p = this.known.get(n);
      return p !== undefined && comparePositions(p, position) >= 0;
    });
  }

  private settle(w: Waiting, reached: boolean): void {
    clearTimeout(w.timer);
    this.waiting.delete(w);
    w.resolve(reached);
  }

  private async loadKnown(): Promise<void> {
    for (const s of await listStatuses(this.db)) this.advance(s.name, s.position);
  }

  async close(): Promise<void> {
    for (const w of this.waiting) this.settle(w, false);
    await this.listener?.close().catch(() => {});
    this.listener = null;
  }
}
