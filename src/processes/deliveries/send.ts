// One claim's deliveries sent to their dataset: whole batches first; a batch the platform refuses as a whole
// is split (at the event it names, or in halves) until the bad events are alone and the rest went through.
import { sendConversionBatch, type ConversionResult } from '../../platform/conversions.ts';
import type { PlatformConfig } from '../../platform/graph.ts';
import type { SendOutcome } from '../../../commands/delivery/decide.ts';
import { toServerEvent } from './payload.ts';
import type { QueuedDelivery } from './queue-sql.ts';

export type DispatchOutcome = SendOutcome | { kind: 'unsent' };

export interface Dispatch {
  datasetId: string;
  accessToken: string;
  testEventCode: string | null;
  /** Epoch ms after which no new request may start (the claim's lease must outlive every request). */
  startBefore: number;
}

/**
 * The platform's message, then its explanation for people (error_user_msg) when it adds one: a refused event's message
 * is often only "Invalid parameter", and what is wrong with it is said there.
 */
function describe(r: Extract<ConversionResult, { kind: 'transient' | 'permanent' }>): string {
  const code = r.code !== undefined ? ` (code ${r.code}${r.kind === 'permanent' && r.subcode !== undefined ? `, subcode ${r.subcode}` : ''})` : '';
  const user = r.userMessage?.trim();
  const explained = user && !r.message.includes(user) ? `${r.message}: ${user}` : r.message;
  return `${explained}${code}`;
}

/**
 * Refusals about the request itself (token, permissions, a dataset the platform does not know or the token
 * cannot reach: code 100, subcode 33), and answers without a Graph error code (a proxy's or a wrong URL's 404
 * page: nothing in them is about an event): every event would be refused, so no split. A bare 413 is the one
 * such answer a smaller batch can get past, so it is split.
 */
function refusesEveryEvent(r: Extract<ConversionResult, { kind: 'permanent' }>): boolean {
  return (r.code === undefined && r.status !== 413) || r.code === 190 || r.code === 10 || (r.code !== undefined && r.code >= 200 && r.code <= 299) || r.status === 401 || r.status === 403
    || (r.code === 100 && r.subcode === 33);
}

export async function sendDispatch(cfg: PlatformConfig, dispatch: Dispatch, rows: QueuedDelivery[], out = new Map<string, DispatchOutcome>()): Promise<Map<string, DispatchOutcome>> {
  const all = (outcome: DispatchOutcome) => { for (const r of rows) out.set(r.id, outcome); return out; };
  if (rows.length === 0) return out;
  if (Date.now() > dispatch.startBefore || cfg.signal?.aborted) return all({ kind: 'unsent' });
  const result = await sendConversionBatch(cfg, {
    datasetId: dispatch.datasetId, accessToken: dispatch.accessToken, events: rows.map(toServerEvent),
    ...(dispatch.testEventCode ? { testEventCode: dispatch.testEventCode } : {}),
  });
  switch (result.kind) {
    case 'accepted':
      return all({ kind: 'accepted' });
    case 'transient':
      return all({ kind: 'transient', message: describe(result) });
    case 'permanent': {
      if (rows.length === 1 || refusesEveryEvent(result)) return all({ kind: 'permanent', message: describe(result) });
      if (result.eventIndex !== undefined) {
        out.set(rows[result.eventIndex].id, { kind: 'permanent', message: describe(result) });
        return sendDispatch(cfg, dispatch, rows.filter((_, i) => i !== result.eventIndex), out);
      }
      const half = Math.ceil(rows.length / 2);
      await sendDispatch(cfg, dispatch, rows.slice(0, half), out);
      return sendDispatch(cfg, dispatch, rows.slice(half), out);
    }
    default: {
      const _never: never = result;
      throw new Error('unknown platform result');
    }
  }
}
