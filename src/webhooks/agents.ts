// Keep-alive agents for webhook pushes: one per origin and checked addresses, bounded, closed at shutdown.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { pinnedLookup, type ResolvedAddress } from './resolve.ts';

export interface SenderAgentsOptions {
  /** Agents kept at once; the least recently used one is retired beyond this. */
  maxAgents?: number;
  /** Open sockets per agent (per origin and address). */
  maxSocketsPerAgent?: number;
  /** Extra trusted certificate authorities (a private PKI, or tests); the system roots stay trusted. */
  ca?: string | Buffer | Array<string | Buffer>;
}

export interface SenderAgents {
  readonly options: Required<Omit<SenderAgentsOptions, 'ca'>> & Pick<SenderAgentsOptions, 'ca'>;
  /** Insertion order doubles as recency order: a used agent is moved to the end. */
  readonly pool: Map<string, HttpAgent>;
  closed: boolean;
}

export interface AgentTarget {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** The checked addresses, tried in this order. */
  addresses: ResolvedAddress[];
}

export function createSenderAgents(options: SenderAgentsOptions = {}): SenderAgents {
  return {
    options: { maxAgents: options.maxAgents ?? 256, maxSocketsPerAgent: options.maxSocketsPerAgent ?? 16, ca: options.ca },
    pool: new Map(),
    closed: false,
  };
}

/**
 * The agent for a target. Its `lookup` is pinned to the checked addresses, and agent options override the
 * request's when a socket is made, so no socket of this agent can reach another address.
 */
export function agentFor(agents: SenderAgents, target: AgentTarget): HttpAgent {
  if (agents.closed) throw new Error('the webhook sender is shut down');
  const key = `${target.protocol}//${target.hostname}:${target.port}@${target.addresses.map((a) => a.address).join(',')}`;
  const existing = agents.pool.get(key);
  if (existing) {
    agents.pool.delete(key);
    agents.pool.set(key, existing);
    return existing;
  }
  const agent = makeAgent(target, agents.options, true);
  agents.pool.set(key, agent);
  if (agents.pool.size > agents.options.maxAgents) {
    const [oldestKey, oldest] = agents.pool.entries().next().value as [string, HttpAgent];
    agents.pool.delete(oldestKey);
    retire(oldest);
  }
  return agent;
}

/** A single-use agent for callers that keep no pool; the caller destroys it after the request. */
export function oneShotAgent(target: AgentTarget, ca?: SenderAgentsOptions['ca']): HttpAgent {
  return makeAgent(target, { maxSocketsPerAgent: 1, ca }, false);
}

function makeAgent(target: AgentTarget, options: Pick<SenderAgentsOptions, 'maxSocketsPerAgent' | 'ca'>, keepAlive: boolean): HttpAgent {
  const common = { keepAlive, maxSockets: options.maxSocketsPerAgent, lookup: pinnedLookup(target.addresses) };
  if (target.protocol === 'http:') return new HttpAgent(common);
  const ca = options.ca === undefined ? undefined : withSystemRoots(options.ca);
  return new HttpsAgent({ ...common, ca });
}

function withSystemRoots(ca: NonNullable<SenderAgentsOptions['ca']>): Array<string | Buffer> {
  // Setting `ca` replaces the default roots, so add them back.
  return [...rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

/** Stop pooling an evicted agent without cutting pushes still in flight on it. */
function retire(agent: HttpAgent): void {
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) sockets?.forEach((socket) => socket.destroy());
}

/** Close every pooled connection (shutdown); later pushes through these agents fail. */
export function closeSenderAgents(agents: SenderAgents): void {
  agents.closed = true;
  for (const agent of agents.pool.values()) agent.destroy();
  agents.pool.clear();
}
