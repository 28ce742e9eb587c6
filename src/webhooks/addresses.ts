// Classifies IP addresses for the webhook SSRF guard: only 'public' addresses may receive pushes.
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'documentation';

type Rule = readonly [AddressClass, string];

// Order matters: the first matching rule wins, so single metadata addresses come before their ranges.
const V4_RULES: readonly Rule[] = [
  ['metadata', '169.254.169.254/32'], // AWS, GCP, Azure, OpenStack, DigitalOcean ...
  ['metadata', '169.254.170.2/32'], // AWS ECS task credentials
  ['metadata', '168.63.129.16/32'], // Azure wire server: a public-looking address that talks to the host
  ['metadata', '100.100.100.200/32'], // Alibaba Cloud
  ['metadata', '192.0.0.192/32'], // Oracle Cloud (legacy)
  ['unspecified', '0.0.0.0/8'],
  ['loopback', '127.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['cgnat', '100.64.0.0/10'],
  ['link_local', '169.254.0.0/16'],
  ['documentation', '192.0.2.0/24'],
  ['documentation', '198.51.100.0/24'],
  ['documentation', '203.0.113.0/24'],
  ['reserved', '192.0.0.0/24'],
  ['reserved', '192.88.99.0/24'],
  ['reserved', '198.18.0.0/15'],
  ['multicast', '224.0.0.0/4'],
  ['reserved', '240.0.0.0/4'],
];

const V6_RULES: readonly Rule[] = [
  ['metadata', 'fd00:ec2::254/128'], // AWS over IPv6
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['link_local', 'fe80::/10'],
  ['private', 'fec0::/10'], // deprecated site-local, still routed inside some networks
  ['unique_local', 'fc00::/7'],
  ['multicast', 'ff00::/8'],
  ['documentation', '2001:db8::/32'],
  ['documentation', '3fff::/20'],
  ['private', '64:ff9b:1::/48'], // local-use NAT64
  ['reserved', '100::/64'],
  ['reserved', '2001::/23'], // IETF protocol assignments, Teredo included (its v4 is obfuscated)
];

interface CompiledRule {
  cls: AddressClass;
  list: BlockList;
}

function compile(rules: readonly Rule[], family: 'ipv4' | 'ipv6'): readonly CompiledRule[] {
  return rules.map(([cls, cidr]) => {
    const [network, prefix] = cidr.split('/');
    const list = new BlockList();
    list.addSubnet(network, Number(prefix), family);
    return { cls, list };
  });
}

// Immutable lookup tables, built once at load; nothing adds rules afterwards.
const V4 = compile(V4_RULES, 'ipv4');
const V6 = compile(V6_RULES, 'ipv6');
const GLOBAL_UNICAST = compile([['public', '2000::/3']], 'ipv6')[0].list;

/** The class of an IPv4 or IPv6 address (a zone id such as %eth0 is ignored); throws on anything else. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
}

/** Classes whose addresses reach this machine: loopback, and 0.0.0.0 or :: (a connection to them lands here too). */
export function reachesThisHost(cls: AddressClass): boolean {
  return cls === 'loopback' || cls === 'unspecified';
}

export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip) === 'public';
}

function classifyV4(ip: string): AddressClass {
  return V4.find((rule) => rule.list.check(ip, 'ipv4'))?.cls ?? 'public';
}

function classifyV6(ip: string): AddressClass {
  // An IPv6 form that carries an IPv4 address reaches that IPv4 address, so it gets the IPv4's class.
  const embedded = embeddedIPv4(ipv6Groups(ip));
  if (embedded !== null) return classifyV4(embedded);
  const rule = V6.find((r) => r.list.check(ip, 'ipv6'));
  if (rule) return rule.cls;
  return GLOBAL_UNICAST.check(ip, 'ipv6') ? 'public' : 'reserved';
}

/** The eight 16-bit groups of a valid IPv6 address. */
function ipv6Groups(ip: string): number[] {
  // The WHATWG URL parser canonicalises IPv6 (dotted IPv4 tails become hex), so only hex groups remain.
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

/** The IPv4 address inside an IPv4-mapped, -compatible, -translated, NAT64 or 6to4 address, else null. */
function embeddedIPv4(g: number[]): string | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const low = () => dotted(g[6], g[7]);
  if (zeroUpTo(5) && g[5] === 0xffff) return low(); // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return low(); // ::ffff:0:a.b.c.d (translated)
  if (zeroUpTo(6) && (g[6] !== 0 || g[7] > 1)) return low(); // ::a.b.c.d (compatible), but not :: or ::1
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return low(); // NAT64
  if (g[0] === 0x2002) return dotted(g[1], g[2]); // 6to4
  return null;
}

function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

// With their article: "an unspecified address" (a regex on the first letter would write "an unique-local").
const DESCRIPTIONS: Record<Exclude<AddressClass, 'public'>, string> = {
  private: 'a private',
  loopback: 'a loopback',
  link_local: 'a link-local',
  unique_local: 'a unique-local',
  cgnat: 'a shared (CGNAT)',
  metadata: 'a cloud metadata',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  reserved: 'a reserved',
  documentation: 'a documentation',
};

/** Short English words for a refused class with their article, e.g. "a link-local". */
export function describeAddressClass(cls: Exclude<AddressClass, 'public'>): string {
  return DESCRIPTIONS[cls];
}
