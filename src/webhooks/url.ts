// Subscription-time checks of a webhook URL: HTTPS, no credentials, no private address or local name.
import { isIP } from 'node:net';
import { charCount } from '../../commands/shared/text.ts';
import { classifyAddress, describeAddressClass, reachesThisHost } from './addresses.ts';

export type UrlCheck = { ok: true } | { ok: false; reason: string };

export interface UrlCheckOptions {
  /** WEBHOOK_ALLOW_PRIVATE: a loopback receiver is accepted, over plain HTTP too (tests and demos); nothing else private. */
  allowPrivate: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2000;

const LOCAL_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata']);
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

const fail = (reason: string): UrlCheck => ({ ok: false, reason });

/** Whether a URL may be stored as a webhook target; the reason is a short English sentence. */
export function checkWebhookUrl(url: string, { allowPrivate }: UrlCheckOptions): UrlCheck {
  // Characters as the specification counts them (code points): an emoji in the path is one, not two UTF-16 units.
  if (url.length > MAX_WEBHOOK_URL_LENGTH && charCount(url) > MAX_WEBHOOK_URL_LENGTH) return fail(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser silently strips surrounding blanks; refuse them so what is stored is what is checked.
  if (/[\s\x00-\x1f\x7f]/.test(url)) return fail('url must not contain spaces or control characters');
  // The URL parser reads `https:/host`, `https:host` and backslashes as if slashes had been written: what is stored
  // and shown would not be what is sent to.
  if (/^https?:(?!\/\/)/i.test(url) || url.includes('\\')) return fail('url must be written as https://host/path, with two slashes and no backslash');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('url is not a valid absolute URL');
  }
  const loopback = allowPrivate && isLoopbackHost(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(loopback && parsed.protocol === 'http:')) {
    return fail(loopback ? 'url must use http or https' : 'url must use https');
  }
  if (parsed.username !== '' || parsed.password !== '') return fail('url must not contain credentials');
  if (parsed.hostname === '') return fail('url must have a host');
  // No connection can be opened to port 0: every push would fail.
  if (parsed.port === '0') return fail('url must not use port 0');
  return loopback ? { ok: true } : checkWebhookHost(parsed.hostname);
}

/** An address of this machine (loopback, or 0.0.0.0 and ::) or a loopback name (RFC 6761): all WEBHOOK_ALLOW_PRIVATE opens. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) return reachesThisHost(classifyAddress(host));
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Whether a host (as URL.hostname gives it: lower case, IPv4 normalised, IPv6 in brackets) may receive
 * pushes without WEBHOOK_ALLOW_PRIVATE. Names that merely resolve to private addresses pass here; the
 * sender refuses them after resolution.
 */
export function checkWebhookHost(hostname: string): UrlCheck {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) {
    const cls = classifyAddress(host);
    return cls === 'public' ? { ok: true } : fail(`url must not point to ${describeAddressClass(cls)} address`);
  }
  if (LOCAL_NAMES.has(host) || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return fail('url must not point to a local host name');
  }
  // A single label ("intranet") only resolves through local search domains, never on the internet.
  if (!host.includes('.')) return fail('url host must be a fully qualified domain name');
  // No name server answers for an empty label (`a..b`), a label over 63 or a name over 253 characters (RFC 1035).
  if (host.length > 253 || host.split('.').some((label) => label === '' || label.length > 63)) return fail('url host is not a valid domain name');
  return { ok: true };
}
