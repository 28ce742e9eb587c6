// Graph API transport: one request with a time-out, its answer classified as ok, transient or permanent.
import pRetry from 'p-retry';
import type { Config } from '../config.ts';
import { storableText } from '../../commands/shared/text.ts';

export interface PlatformConfig {
  /** Base URL without the version, e.g. https://graph.facebook.com or the sandbox's URL. */
  apiUrl: string;
  /** e.g. v21.0 */
  apiVersion: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** In-process retries of transient failures for reads (GET); default 2. Conversion batches are never
   *  retried here: the delivery process records every attempt and schedules its own retries. */
  retries?: number;
  /** The service is stopping: a request in flight ends at once (a transient failure) and none is retried. */
  signal?: AbortSignal;
}

/** The client's settings from the service configuration. */
export function platformConfigFrom(config: Pick<Config, 'platformApiUrl' | 'platformApiVersion'>, timeoutMs?: number): PlatformConfig {
  return { apiUrl: config.platformApiUrl, apiVersion: config.platformApiVersion, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

export interface FailureDetails {
  /** HTTP status; 0 when no answer came (network error, time-out). */
  status: number;
  message: string;
  code?: number;
  subcode?: number;
  /** The platform's own explanation for people (error_user_msg), when it gave one. */
  userMessage?: string;
  fbtraceId?: string;
}

/** transient: worth trying again later; permanent: the same request will be refused again. */
export type PlatformFailure = ({ kind: 'transient' } & FailureDetails) | ({ kind: 'permanent' } & FailureDetails);

export type PlatformResult<T> = { kind: 'ok'; value: T } | PlatformFailure;

interface GraphErrorBody {
  message?: unknown;
  code?: unknown;
  error_subcode?: unknown;
  error_user_msg?: unknown;
  fbtrace_id?: unknown;
  is_transient?: unknown;
}

/*
 * How a refusal is classified (the platform documents these codes under "Graph API error handling"):
 *  - transient (worth retrying later, the batch itself is fine): no answer (network error, time-out);
 *    is_transient true; codes 1 (unknown / temporary), 2 (service unavailable), 4, 17, 32, 613 (rate limits:
 *    app, user, page, custom), 341 (application limit), 368 (temporarily blocked for policy violations: the
 *    guide says wait and retry), and the business use case rate limits 80000-80014
 *    (80000 ads insights, 80001 pages, 80003 custom audiences, 80004 ads management, 80005 leadgen, ...), which
 *    the platform answers with HTTP 400 and without is_transient; any HTTP 5xx or 429.
 *  - permanent (retrying the same request cannot help): 100 (invalid parameter), 190 (token invalid or
 *    expired), 10 and 200-299 (permissions); any other 4xx.
 * The flag and the transient codes win over the HTTP status; permanent codes win over a 5xx status.
 */
const TRANSIENT_CODES = new Set([1, 2, 4, 17, 32, 341, 368, 613]);
/** The business use case rate limits ("There have been too many calls ... Wait a bit and try again"). */
const isBusinessUseCaseLimit = (code: number): boolean => code >= 80000 && code <= 80014;
const PERMANENT_CODES = new Set([100, 190, 10]);

export function classifyGraphError(status: number, code: number | undefined, isTransient: boolean): 'transient' | 'permanent' {
  if (isTransient) return 'transient';
  if (code !== undefined && (TRANSIENT_CODES.has(code) || isBusinessUseCaseLimit(code))) return 'transient';
  if (code !== undefined && (PERMANENT_CODES.has(code) || (code >= 200 && code <= 299))) return 'permanent';
  if (status >= 500 || status === 429 || status === 0) return 'transient';
  return 'permanent';
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads a failed answer's Graph error, or describes the bare HTTP failure when the body has none. */
export function failureFrom(status: number, body: unknown): PlatformFailure {
  const error = (body as { error?: GraphErrorBody } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') {
    return { kind: classifyGraphError(status, undefined, false), status, message: `HTTP ${status} without a Graph error body` };
  }
  const code = num(error.code);
  const failure: PlatformFailure = {
    kind: classifyGraphError(status, code, error.is_transient === true),
    status,
    message: str(error.message) ?? `HTTP ${status}`,
  };
  if (code !== undefined) failure.code = code;
  const subcode = num(error.error_subcode);
  if (subcode !== undefined) failure.subcode = subcode;
  const userMessage = str(error.error_user_msg);
  if (userMessage !== undefined) failure.userMessage = userMessage;
  const trace = str(error.fbtrace_id);
  if (trace !== undefined) failure.fbtraceId = trace;
  return failure;
}

export function graphUrl(cfg: PlatformConfig, path: string, query: Record<string, string | undefined> = {}): URL {
  const url = new URL(`${cfg.apiUrl.replace(/\/+$/, '')}/${cfg.apiVersion}/${path.replace(/^\/+/, '')}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

const STOPPING = 'interrupted: the service is stopping';

const MIN_TOKEN_CUT = 8;

/**
 * The platform's refusal with the access token cut out: the Graph API quotes a token it cannot parse
 * ("Malformed access token EAAB..."), and a failure's text goes on to delivery last_error, job errors,
 * the event store, webhooks and logs, where a stored-encrypted token must never appear.
 */
export function withoutToken<F extends FailureDetails>(failure: F, token: string | undefined): F {
  // A real token is long (about 200 characters); cutting a few letters ("bad") would mangle the words around them.
  if (token === undefined || token.length < MIN_TOKEN_CUT) return failure;
  const cut = (text: string) => text.split(token).join('[token]');
  const result = { ...failure, message: cut(failure.message) };
  if (failure.userMessage !== undefined) result.userMessage = cut(failure.userMessage);
  return result;
}

/**
 * One HTTP exchange with the platform; never throws for the platform's or the network's failures. `token` is the
 * access token the request carries, kept out of every failure's text.
 */
export async function graphFetch(cfg: PlatformConfig, url: URL, init: { method: 'GET' | 'POST'; body?: string; token?: string }): Promise<PlatformResult<unknown>> {
  const answer = await graphExchange(cfg, url, init);
  return answer.kind === 'ok' ? answer : withoutToken(answer, init.token);
}

async function graphExchange(cfg: PlatformConfig, url: URL, init: { method: 'GET' | 'POST'; body?: string }): Promise<PlatformResult<unknown>> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: init.body !== undefined ? { 'content-type': 'application/json' } : {},
      body: init.body,
      signal: cfg.signal ? AbortSignal.any([cfg.signal, AbortSignal.timeout(cfg.timeoutMs ?? 30_000)]) : AbortSignal.timeout(cfg.timeoutMs ?? 30_000),
    });
    text = await res.text();
  } catch (err) {
    if (cfg.signal?.aborted) return { kind: 'transient', status: 0, message: STOPPING };
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const reason = timedOut ? `no answer within ${cfg.timeoutMs ?? 30_000} ms` : `network error: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
    return { kind: 'transient', status: 0, message: reason };
  }
  let body: unknown = null;
  try {
    // The answer's text (a lead's answers, an ad's name, an error message) is stored: a NUL or a lone surrogate
    // in it would fail that append, and the delivery, lead or job would stay open for good.
    body = text === '' ? null : JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? storableText(value) : value));
  } catch {
    // A non-JSON answer (a proxy's HTML page) is handled below like a failure without a Graph body.
  }
  if (!res.ok || body === null || typeof body !== 'object') return failureFrom(res.ok ? 502 : res.status, body);
  return { kind: 'ok', value: body };
}

/** The insights' "Request Timed Out ... Try a smaller date range" (code 100 and code 2 with these subcodes). */
const TIMED_OUT_SUBCODES = new Set([1504018, 1504038]);

/** The platform's answer to a query that covers too much (code 1, "Please reduce the amount of data ...", or the
 *  insights' time-out asking for a smaller date range). Asking again the same way cannot help; the caller must ask for less. */
export function isReduceDataError(failure: PlatformFailure): boolean {
  if (failure.subcode !== undefined && TIMED_OUT_SUBCODES.has(failure.subcode)) return true;
  return failure.code === 1 && (failure.subcode === 99 || /reduce the amount of data/i.test(failure.message));
}

class TransientAttempt extends Error {}

/** A GET with in-process retries of transient failures (p-retry, exponential back-off). */
export async function graphGet(cfg: PlatformConfig, path: string, query: Record<string, string | undefined>): Promise<PlatformResult<unknown>> {
  const url = graphUrl(cfg, path, query);
  const last: { result: PlatformResult<unknown> | null } = { result: null };
  try {
    return await pRetry(
      async () => {
        last.result = await graphFetch(cfg, url, { method: 'GET', token: query.access_token });
        if (last.result.kind === 'transient' && !isReduceDataError(last.result) && !cfg.signal?.aborted) throw new TransientAttempt(last.result.message);
        return last.result;
      },
      { retries: cfg.retries ?? 2, minTimeout: 200, factor: 2 },
    );
  } catch (err) {
    if (err instanceof TransientAttempt && last.result) return last.result;
    throw err;
  }
}
