// Send-time SSRF guard: resolve a webhook host once, refuse non-public answers, pin the connection to them.
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, describeAddressClass, reachesThisHost } from './addresses.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name; injectable so tests can play a rebinding DNS. */
export type LookupAll = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupAll = async (hostname) => {
  const answers: LookupAddress[] = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * A lookup that asks `lookup` once per host name and gives every later caller the same answer. The sender
 * makes one per batch: the batch's pushes to one host cost one resolution, each still checks every answer
 * and pins its connection, and the next batch resolves again.
 */
export function lookupOnceEach(lookup: LookupAll): LookupAll {
  const answers = new Map<string, Promise<ResolvedAddress[]>>();
  return (hostname) => {
    let answer = answers.get(hostname);
    if (answer === undefined) {
      answer = lookup(hostname);
      answers.set(hostname, answer);
    }
    return answer;
  };
}

export type Resolution = { ok: true; addresses: ResolvedAddress[] } | { ok: false; error: string };

export interface ResolveOptions {
  allowPrivate: boolean;
  lookup: LookupAll;
}

/**
 * The addresses to connect to, in the resolver's order. The host is resolved exactly once; if any answer is not
 * public the push is refused, since a DNS name that mixes public and private answers is a rebinding attempt.
 */
export async function resolveTarget(hostname: string, { allowPrivate, lookup }: ResolveOptions): Promise<Resolution> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const answers: ResolvedAddress[] = literal !== 0 ? [{ address: host, family: literal === 6 ? 6 : 4 }] : await lookup(host);
  if (answers.length === 0) return { ok: false, error: 'host has no addresses' };
  for (const answer of answers) {
    const cls = classifyAddress(answer.address);
    // WEBHOOK_ALLOW_PRIVATE opens loopback receivers (tests and demos), never the rest of the private ranges.
    if (cls !== 'public' && !(allowPrivate && reachesThisHost(cls))) {
      return { ok: false, error: `refused: ${host} resolves to ${describeAddressClass(cls)} address` };
    }
  }
  return { ok: true, addresses: answers };
}

/**
 * A `lookup` for net/tls connect that answers with the already-checked addresses and never asks DNS. All of
 * them: net tries the next when one does not connect (autoSelectFamily), so a name answering ::1 before
 * 127.0.0.1 (localhost in many containers) still reaches a receiver listening on IPv4 only.
 */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Answer asynchronously, as dns.lookup does, so net sees the order of events it expects.
    process.nextTick(() => {
      if (options.all) callback(null, addresses.map(({ address, family }) => ({ address, family })));
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
