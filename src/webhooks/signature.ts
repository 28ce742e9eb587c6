// Webhook signing secrets: HMAC signatures of pushes, the receiver-side check, and encryption at rest.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';

/** `sha256=<hex HMAC-SHA256 of "{timestamp}.{raw body}">`, keyed with the secret as shown to the subscriber. */
export function signPush(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody);
  return `sha256=${hmac.digest('hex')}`;
}

/** Node's IncomingHttpHeaders (lower-case keys), a plain record in any case, or a fetch Headers. */
export type PushHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: PushHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The receiver's check: the signature matches the raw body and the timestamp is within the tolerance of
 * now (both directions, so a captured push cannot be replayed later). Several secrets may be given while
 * the receiver rotates.
 */
export function verifyPush(
  secret: string | readonly string[],
  headers: PushHeaders,
  rawBody: string | Buffer,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestampText = header(headers, TIMESTAMP_HEADER);
  const signature = header(headers, SIGNATURE_HEADER);
  if (timestampText === undefined || signature === undefined || !/^\d{1,15}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const given = Buffer.from(signature);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  // Every secret is compared, so the time taken does not tell which one matched.
  let valid = false;
  for (const candidate of secrets) {
    const expected = Buffer.from(signPush(candidate, timestamp, rawBody));
    if (expected.length === given.length && timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}

/** A new signing secret, shown to the subscriber once: 'whsec_' and 32 random bytes in base64url. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

// Format "v1.<base64 of iv | ciphertext | tag>"; the version is authenticated as associated data so a
// later format can be told apart and a relabelled ciphertext fails.
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new TypeError('the secret encryption key must be 32 bytes');
}

/** AES-256-GCM encryption of a secret stored at rest. */
export function encryptSecret(plain: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(VERSION));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64')}`;
}

/** The plain secret; throws when the text was altered, has an unknown version or the key is wrong. */
export function decryptSecret(ciphertext: string, key: Buffer): string {
  checkKey(key);
  const [version, payload, extra] = ciphertext.split('.');
  if (version !== VERSION || payload === undefined || extra !== undefined) throw new Error('unknown secret format');
  const raw = Buffer.from(payload, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('secret could not be decrypted');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(VERSION));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('secret could not be decrypted');
  }
}

// Fixed, public salt: the key must be the same in every process that shares the passphrase.
const KEY_SALT = 'conversion-lead-service/secrets-at-rest/v1';

/** A 32-byte key from an operator passphrase (SECRET_KEY); scrypt makes guessing a weak one costly. */
export function deriveKey(passphrase: string): Buffer {
  if (passphrase === '') throw new TypeError('the passphrase must not be empty');
  return scryptSync(passphrase, KEY_SALT, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
}
