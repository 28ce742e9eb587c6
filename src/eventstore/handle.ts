// Command handling: load one stream, fold it, decide, append with the expected revision; on a
// concurrent write, reload and decide again (a few times) so no write is ever lost.
import pRetry from 'p-retry';
import { WrongExpectedVersionError, type AppendResult, type EventMetadata, type EventStore, type NewEvent, type RecordedEvent } from './port.ts';

export interface Aggregate<State, Event extends { type: string; data: unknown }> {
  initialState(): State;
  evolve(state: State, event: Event): State;
}

export interface Loaded<State> {
  state: State;
  /** Revision of the last event, or 'no_stream'. */
  revision: bigint | 'no_stream';
}

export async function loadAggregate<State, Event extends { type: string; data: unknown }>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<State, Event>,
): Promise<Loaded<State>> {
  const events = await store.readStream(stream);
  let state = aggregate.initialState();
  for (const e of events) state = aggregate.evolve(state, { type: e.type, data: e.data } as Event);
  return { state, revision: events.length ? events[events.length - 1].revision : 'no_stream' };
}

export interface Decision<Event extends { type: string; data: unknown }, Result> {
  events: Event[];
  result: Result;
}

export interface Handled<State, Result> {
  state: State;
  result: Result;
  /** Null when the decision produced no events (nothing appended). */
  append: AppendResult | null;
}

/**
 * Run decide() against the stream's current state and append what it returns.
 * decide may throw (typed ApiError); only a concurrent write (wrong expected version) is retried.
 */
export async function handleCommand<State, Event extends { type: string; data: unknown }, Result>(
  store: EventStore,
  stream: string,
  aggregate: Aggregate<State, Event>,
  decide: (state: State) => Decision<Event, Result>,
  metadata: EventMetadata,
): Promise<Handled<State, Result>> {
  return inTurn(store, stream, () => pRetry(
    async () => {
      const { state, revision } = await loadAggregate(store, stream, aggregate);
      const decision = decide(state);
      if (decision.events.length === 0) return { state, result: decision.result, append: null };
      const append = await store.append(stream, decision.events as NewEvent[], revision, metadata);
      const next = decision.events.reduce(aggregate.evolve, state);
      return { state: next, result: decision.result, append };
    },
    {
      retries: 5,
      minTimeout: 5,
      maxTimeout: 50,
      randomize: true,
      shouldRetry: ({ error }) => error instanceof WrongExpectedVersionError,
    },
  ));
}

/**
 * One command at a time per stream in this process. Forty writers of one card racing their appends
 * (forty notes sent at once) ran out of retries and answered 500; queued here, each loads the state
 * its predecessor appended and lands at once. Writers in other processes still meet a wrong expected
 * revision and retry. The work must not take the turn of the same stream again (it would wait on itself).
 */
export function inTurn<T>(store: EventStore, stream: string, work: () => Promise<T>): Promise<T> {
  let turns = turnsByStore.get(store);
  if (!turns) turnsByStore.set(store, (turns = new StreamTurns()));
  return turns.run(stream, work);
}

class StreamTurns {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(stream: string, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(stream) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => { done = resolve; });
    const tail = before.then(() => mine);
    this.#tails.set(stream, tail);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (this.#tails.get(stream) === tail) this.#tails.delete(stream);
    }
  }
}

/** Per store instance (the process's one store, or a test's), not a module-wide queue. */
const turnsByStore = new WeakMap<EventStore, StreamTurns>();

export type { RecordedEvent };
