import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decryptSecret, deriveKey, encryptSecret, generateSecret, signPush, verifyPush } from '../../src/webhooks/signature.ts';

const NOW = 1_700_000_000;
const BODY = '{"a":1}';

const signing = suite('Webhook signatures: what receivers check');

signing('signs "{timestamp}.{raw body}" with HMAC-SHA256 (vector computed with openssl)', () => {
  assert.is(signPush('whsec_test', NOW, BODY), 'sha256=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
  assert.is(signPush('whsec_test', NOW, Buffer.from(BODY)), signPush('whsec_test', NOW, BODY));
});

const headersAt = (timestamp: number, signature = signPush('whsec_test', timestamp, BODY)) => ({
  'x-service-timestamp': String(timestamp),
  'x-service-signature': signature,
});

signing('accepts a fresh push, from node headers or fetch Headers', () => {
  assert.ok(verifyPush('whsec_test', headersAt(NOW), BODY, NOW + 299));
  assert.ok(verifyPush('whsec_test', new Headers(headersAt(NOW)), BODY, NOW - 299));
  assert.ok(verifyPush('whsec_test', { 'X-Service-Timestamp': String(NOW), 'X-Service-Signature': signPush('whsec_test', NOW, BODY) }, BODY, NOW));
});

signing('rejects stale and future timestamps beyond the tolerance', () => {
  assert.not.ok(verifyPush('whsec_test', headersAt(NOW), BODY, NOW + 301));
  assert.not.ok(verifyPush('whsec_test', headersAt(NOW), BODY, NOW - 301));
  assert.ok(verifyPush('whsec_test', headersAt(NOW), BODY, NOW + 1000, 1000));
});

signing('rejects a wrong signature, a wrong secret, an altered body or a replayed signature with a new timestamp', () => {
  assert.not.ok(verifyPush('whsec_test', headersAt(NOW, 'sha256=' + '0'.repeat(64)), BODY, NOW));
  assert.not.ok(verifyPush('whsec_test', headersAt(NOW, 'sha256=abc'), BODY, NOW));
  assert.not.ok(verifyPush('whsec_other', headersAt(NOW), BODY, NOW));
  assert.not.ok(verifyPush('whsec_test', headersAt(NOW), '{"a":2}', NOW));
  assert.not.ok(verifyPush('whsec_test', { ...headersAt(NOW), 'x-service-timestamp': String(NOW + 1) }, BODY, NOW));
});

signing('rejects missing or malformed headers', () => {
  assert.not.ok(verifyPush('whsec_test', {}, BODY, NOW));
  assert.not.ok(verifyPush('whsec_test', { 'x-service-signature': signPush('whsec_test', NOW, BODY) }, BODY, NOW));
  assert.not.ok(verifyPush('whsec_test', { ...headersAt(NOW), 'x-service-timestamp': `${NOW}.5` }, BODY, NOW));
});

signing('accepts any of several secrets during a rotation', () => {
  assert.ok(verifyPush(['whsec_new', 'whsec_test'], headersAt(NOW), BODY, NOW));
  assert.not.ok(verifyPush(['whsec_new', 'whsec_other'], headersAt(NOW), BODY, NOW));
});

signing.run();

const secrets = suite('Webhook secrets: generated once, encrypted at rest');
const key = deriveKey('correct horse battery staple');

secrets('generates distinct whsec_ secrets of 32 random bytes', () => {
  const a = generateSecret();
  assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.is(Buffer.from(a.slice(6), 'base64url').length, 32);
  assert.is.not(generateSecret(), a);
});

secrets('derives the same 32-byte key from the same passphrase, another from another', () => {
  assert.is(key.length, 32);
  assert.ok(deriveKey('correct horse battery staple').equals(key));
  assert.not.ok(deriveKey('another passphrase').equals(key));
});

secrets('encrypts to versioned text that decrypts back, never the same text twice', () => {
  const plain = generateSecret();
  const a = encryptSecret(plain, key);
  const b = encryptSecret(plain, key);
  assert.match(a, /^v1\.[A-Za-z0-9+/]+=*$/);
  assert.is.not(a, b);
  assert.not.ok(a.includes(plain.slice(6)));
  assert.is(decryptSecret(a, key), plain);
  assert.is(decryptSecret(b, key), plain);
});

secrets('refuses altered text, another key and an unknown version', () => {
  const text = encryptSecret('whsec_abc', key);
  const raw = Buffer.from(text.slice(3), 'base64');
  for (const index of [0, 13, raw.length - 1]) {
    const altered = Buffer.from(raw);
    altered[index] ^= 1;
    assert.throws(() => decryptSecret(`v1.${altered.toString('base64')}`, key), /could not be decrypted/, `byte ${index}`);
  }
  assert.throws(() => decryptSecret(text, deriveKey('wrong')), /could not be decrypted/);
  assert.throws(() => decryptSecret(`v2.${text.slice(3)}`, key), /unknown secret format/);
  assert.throws(() => decryptSecret('v1.AAAA', key), /could not be decrypted/);
  assert.throws(() => encryptSecret('x', Buffer.alloc(16)), /32 bytes/);
});

secrets.run();
