// One signed webhook push attempt: body and headers, SSRF-checked pinned connection, time-out, typed result.
import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { agentFor, oneShotAgent, type AgentTarget, type SenderAgents } from './agents.ts';
import { describeNetworkError } from './network-errors.ts';
import { resolveTarget, systemLookup, type LookupAll } from './resolve.ts';
import { signPush } from './signature.ts';
import { checkWebhookUrl } from './url.ts';

export interface PushDelivery {
  /** The delivery id: X-Service-Delivery and the body's id, the same on every retry. */
  id: string;
  type: string;
  /** ISO-8601 time the event happened. */
  createdAt: string;
  data: unknown;
}

export interface SendPushOptions {
  url: string;
  /** The subscription's current signing secret (plain). */
  secret: string;
  delivery: PushDelivery;
  /** Budget of the whole attempt: DNS, connect, TLS, request and response headers. */
  timeoutMs: number;
  allowPrivate: boolean;
  /** Unix seconds of this attempt: X-Service-Timestamp and the signed prefix. */
  nowSeconds: number;
  lookup?: LookupAll;
  /** Keep-alive pool shared by pushes; without it each attempt opens and closes its own connection. */
  agents?: SenderAgents;
  /** The service is stopping: an attempt still waiting ends at once, as `interrupted`. */
  interrupt?: AbortSignal;
}

export interface PushResult {
  ok: boolean;
  /** HTTP status of the answer, 0 when there was none (refused, network error, time-out). */
  status: number;
  /** Empty on success. */
  error: string;
  durationMs: number;
  /** Ended by `interrupt`, not by the receiver: not an attempt to record (its claim expires and it is sent again). */
  interrupted?: boolean;
}

type Outcome = Omit<PushResult, 'durationMs'>;

interface PushRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  timeoutMs: number;
}

export const USER_AGENT = 'ConversionLeadService-Webhooks/1.0';
/** Enough of an answer to keep the connection reusable; a longer one is cut off with its socket. */
const MAX_RESPONSE_BYTES = 4096;

export function pushBody(delivery: PushDelivery): string {
  return JSON.stringify({ id: delivery.id, type: delivery.type, created_at: delivery.createdAt, data: delivery.data });
}

export function pushHeaders(delivery: PushDelivery, secret: string, nowSeconds: number, body: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'User-Agent': USER_AGENT,
    'X-Service-Event': delivery.type,
    'X-Service-Timestamp': String(nowSeconds),
    'X-Service-Delivery': delivery.id,
    'X-Service-Signature': signPush(secret, nowSeconds, body),
  };
}

/** Make one attempt; never throws, every failure comes back as a result with its status and error. */
export async function sendPush(options: SendPushOptions): Promise<PushResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.interrupt ? AbortSignal.any([options.interrupt, timeout]) : timeout;
  let outcome: Outcome;
  try {
    outcome = await attempt(options, signal);
  } catch (error) {
    outcome = failure(0, signal.aborted ? timedOut(options.timeoutMs) : describeNetworkError(error));
  }
  if (!outcome.ok && options.interrupt?.aborted) outcome = { ...failure(0, 'interrupted: the service is stopping'), interrupted: true };
  return { ...outcome, durationMs: Math.round(performance.now() - started) };
}

async function attempt(options: SendPushOptions, signal: AbortSignal): Promise<Outcome> {
  const check = checkWebhookUrl(options.url, { allowPrivate: options.allowPrivate });
  if (!check.ok) return failure(0, `refused: ${check.reason}`);
  if (options.agents?.closed) return failure(0, 'the webhook sender is shut down');
  const url = new URL(options.url);
  const lookup = options.lookup ?? systemLookup;
  const resolved = await untilAborted(resolveTarget(url.hostname, { allowPrivate: options.allowPrivate, lookup }), signal);
  if (!resolved.ok) return failure(0, resolved.error);

  const https = url.protocol === 'https:';
  const target: AgentTarget = {
    protocol: https ? 'https:' : 'http:',
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    addresses: resolved.addresses,
  };
  const body = pushBody(options.delivery);
  const request: PushRequest = { url, headers: pushHeaders(options.delivery, options.secret, options.nowSeconds, body), body, signal, timeoutMs: options.timeoutMs };
  if (options.agents) return postOnPool(request, target, agentFor(options.agents, target));
  const agent = oneShotAgent(target);
  try {
    return (await post(request, target, agent)).outcome;
  } finally {
    agent.destroy();
  }
}

/** A pooled socket the receiver closed while idle fails at once; that one case is retried on a new socket. */
async function postOnPool(request: PushRequest, target: AgentTarget, agent: Agent): Promise<Outcome> {
  const first = await post(request, target, agent);
  if (!first.staleSocket || request.signal.aborted) return first.outcome;
  return (await post(request, target, agent)).outcome;
}

interface Posted {
  outcome: Outcome;
  staleSocket: boolean;
}

function post(request: PushRequest, target: AgentTarget, agent: Agent): Promise<Posted> {
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send({
      hostname: target.hostname,
      port: target.port,
      path: `${request.url.pathname}${request.url.search}`,
      method: 'POST',
      headers: request.headers,
      agent,
      signal: request.signal,
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const message = request.signal.aborted ? timedOut(request.timeoutMs) : describeNetworkError(error);
      const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      resolve({ outcome: failure(0, message), staleSocket: outgoing.reusedSocket && reset });
    });
    outgoing.on('response', (response) => {
      drain(response);
      resolve({ outcome: statusOutcome(response.statusCode ?? 0), staleSocket: false });
    });
    outgoing.end(request.body);
  });
}

/** The status line decides the outcome; the rest is read (bounded) only so the socket can be reused. */
function drain(response: IncomingMessage): void {
  let received = 0;
  response.on('error', () => {});
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_RESPONSE_BYTES) response.destroy();
  });
}

function statusOutcome(status: number): Outcome {
  if (status >= 200 && status < 300) return { ok: true, status, error: '' };
  if (status >= 300 && status < 400) return failure(status, 'redirect not followed');
  return failure(status, `HTTP ${status}`);
}

function failure(status: number, error: string): Outcome {
  return { ok: false, status, error };
}

function timedOut(timeoutMs: number): string {
  return `timed out after ${timeoutMs} ms`;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
      (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
    );
  });
}
