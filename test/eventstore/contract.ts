// The event store contract: one set of uvu suites that every adapter must pass. Streams get a random
// suffix and reads start from the head seen before the test, so the suites also run on a shared server.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DuplicateEventError,
  WrongExpectedVersionError,
  comparePositions,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
} from '../../src/eventstore/port.ts';
import { appendsAndStreams } from './contract-appends.ts';
import { subscriptions } from './contract-subscribe.ts';

export interface ContractTarget {
  /** Adapter name in the suite titles. */
  name: string;
  open(): Promise<EventStore>;
  close(store: EventStore): Promise<void>;
  /** PostgreSQL refuses any event id it holds; EventStoreDB only acknowledges a retried append idempotently. */
  globalEventIds: boolean;
  /** appendMany is one transaction (PostgreSQL) or sequential, stopping at the first failure (EventStoreDB). */
  atomicAppendMany: boolean;
}

export interface Ctx {
  store: EventStore;
  target: ContractTarget;
}

export const META: EventMetadata = { organizationId: 'org-1', correlationId: 'corr-1', causationId: 'cause-1', actor: 'key:k1' };

export function streamName(label: string): string {
  return `contract_${label}-${randomUUID().slice(0, 8)}`;
}

export function events(n: number, type = 'Thing') {
  return Array.from({ length: n }, (_, i) => ({ type, data: { n: i } }));
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  assert.unreachable('expected a failure');
}

/** Runs an append expected to fail with WrongExpectedVersionError, and returns the error. */
export async function rejected(store: EventStore, stream: string, expected: ExpectedRevision): Promise<WrongExpectedVersionError> {
  const error = await failure(store.append(stream, events(1), expected, META));
  assert.instance(error, WrongExpectedVersionError);
  return error as WrongExpectedVersionError;
}

export async function expectDuplicate(work: Promise<unknown>): Promise<DuplicateEventError> {
  const error = await failure(work);
  assert.instance(error, DuplicateEventError);
  return error as DuplicateEventError;
}

/** Every event of the given streams after a position (other writers on a shared server are ignored). */
export async function readAllOf(store: EventStore, after: Position, streams: string[]): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const batch = await store.readAll({ after: from, maxCount: 500 });
    if (batch.length === 0) return out;
    out.push(...batch.filter((e) => streams.includes(e.stream)));
    from = batch[batch.length - 1].position;
  }
}

export function assertAscending(list: RecordedEvent[]): void {
  for (let i = 1; i < list.length; i++) {
    assert.ok(comparePositions(list[i - 1].position, list[i].position) < 0, `position ${i} is not after ${i - 1}`);
  }
}

/** Register every contract suite for one adapter. */
export function registerContract(target: ContractTarget): void {
  const suites: ReturnType<typeof suite<Ctx>>[] = [];
  const make = (title: string) => {
    const s = suite<Ctx>(`EventStore (${target.name}): ${title}`, { target } as Ctx);
    suites.push(s);
    s.before(async (ctx) => {
      ctx.store = await target.open();
    });
    s.after(async (ctx) => {
      await target.close(ctx.store);
    });
    return s;
  };
  appendsAndStreams(make);
  subscriptions(make);
  for (const s of suites) s.run();
}

export type MakeSuite = (title: string) => ReturnType<typeof suite<Ctx>>;
