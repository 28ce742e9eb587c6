// Per-dataset behaviour (accept / refuse / flaky) and the record of what each dataset received, kept cheap.
import type { DatasetBehaviour, DatasetReceipt, ReceivedBatch } from './types.ts';

interface DatasetRecord {
  behaviour: DatasetBehaviour;
  flakyLeft: number;
  requests: number;
  acceptedEvents: number;
  duplicateEvents: number;
  /** event_id -> times accepted; kept past the cap so de-duplication counts stay right at any volume. */
  eventIds: Map<string, number>;
  batches: ReceivedBatch[];
  events: Record<string, unknown>[];
  /** Event objects held by the batch records, refused batches included; capped like `events`. */
  storedInBatches: number;
  truncated: boolean;
}

export interface LedgerLimits {
  /** Events kept per dataset with their content. */
  maxEvents: number;
  /** Batches kept per dataset. */
  maxBatches: number;
}

/** Events the dataset refuses by id, and whether the refusal names the event's index. */
export interface RefusedEvents {
  ids: ReadonlySet<string>;
  named: boolean;
}

export type Verdict =
  | { kind: 'flaky' }
  | { kind: 'refuse'; code: number; subcode?: number; message: string }
  | { kind: 'check_token'; validTokens?: string[]; refused?: RefusedEvents };

function refusedOf(b: DatasetBehaviour): RefusedEvents | undefined {
  return b.refuseEventIds?.length ? { ids: new Set(b.refuseEventIds), named: b.nameRefusedEvent ?? true } : undefined;
}

export class DatasetLedger {
  private readonly datasets = new Map<string, DatasetRecord>();

  constructor(private readonly limits: LedgerLimits) {}

  private record(datasetId: string): DatasetRecord {
    let rec = this.datasets.get(datasetId);
    if (!rec) {
      rec = {
        behaviour: { mode: 'accept' },
        flakyLeft: 0,
        requests: 0,
        acceptedEvents: 0,
        duplicateEvents: 0,
        eventIds: new Map(),
        batches: [],
        events: [],
        storedInBatches: 0,
        truncated: false,
      };
      this.datasets.set(datasetId, rec);
    }
    return rec;
  }

  /** Replaces the behaviour; a flaky dataset starts counting its failures again. */
  setBehaviour(datasetId: string, behaviour: DatasetBehaviour): void {
    const rec = this.record(datasetId);
    rec.behaviour = { ...behaviour };
    rec.flakyLeft = behaviour.mode === 'flaky' ? (behaviour.failures ?? 1) : 0;
  }

  /** Decides, before the payload is looked at, how this call goes; counts the call. */
  verdict(datasetId: string): Verdict {
    const rec = this.record(datasetId);
    rec.requests += 1;
    const b = rec.behaviour;
    switch (b.mode) {
      case 'flaky':
        if (rec.flakyLeft > 0) {
          rec.flakyLeft -= 1;
          return { kind: 'flaky' };
        }
        return { kind: 'check_token', validTokens: b.validTokens, refused: refusedOf(b) };
      case 'refuse':
        return { kind: 'refuse', code: b.refuseCode ?? 100, ...(b.refuseSubcode !== undefined ? { subcode: b.refuseSubcode } : {}), message: b.refuseMessage ?? 'Invalid parameter' };
      case 'accept':
        return { kind: 'check_token', validTokens: b.validTokens, refused: refusedOf(b) };
      default: {
        const never: never = b.mode;
        throw new Error(`unknown dataset mode ${String(never)}`);
      }
    }
  }

  /** Records one answered batch; `accepted` events also count towards the event id tallies. */
  recordBatch(datasetId: string, batch: Omit<ReceivedBatch, 'receivedAt' | 'events'>, events: Record<string, unknown>[], accepted: boolean): void {
    const rec = this.record(datasetId);
    if (accepted) {
      rec.acceptedEvents += events.length;
      for (const event of events) {
        const id = typeof event.event_id === 'string' ? event.event_id : null;
        if (id === null) continue;
        const seen = rec.eventIds.get(id) ?? 0;
        if (seen > 0) rec.duplicateEvents += 1;
        rec.eventIds.set(id, seen + 1);
      }
    }
    if (accepted && rec.events.length + events.length <= this.limits.maxEvents) {
      for (const e of events) rec.events.push(e);
    } else if (accepted) {
      rec.truncated = true;
    }
    if (rec.batches.length >= this.limits.maxBatches) {
      rec.truncated = true;
      return;
    }
    const keep = rec.storedInBatches + events.length <= this.limits.maxEvents ? events : [];
    if (keep.length < events.length) rec.truncated = true;
    rec.storedInBatches += keep.length;
    rec.batches.push({ ...batch, events: keep, receivedAt: new Date().toISOString() });
  }

  received(datasetId: string): DatasetReceipt {
    const rec = this.record(datasetId);
    return {
      datasetId,
      requests: rec.requests,
      acceptedEvents: rec.acceptedEvents,
      uniqueEventIds: rec.eventIds.size,
      duplicateEvents: rec.duplicateEvents,
      batches: [...rec.batches],
      events: [...rec.events],
      truncated: rec.truncated,
    };
  }

  /** How many times an event id was accepted by the dataset. */
  timesAccepted(datasetId: string, eventId: string): number {
    return this.datasets.get(datasetId)?.eventIds.get(eventId) ?? 0;
  }

  reset(): void {
    this.datasets.clear();
  }
}
