import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hashEmail, hashExternalId, hashPhone, normalizeEmail, normalizePhone, sha256Hex, toE164 } from '../../src/platform/normalize.ts';

const test = suite('Platform normalisation: customer information hashed as the platform documents');

test('sha256Hex gives the known digest of test@example.com', () => {
  assert.is(sha256Hex('test@example.com'), '973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b');
});

test('an e-mail is trimmed and lower-cased before hashing', () => {
  assert.is(normalizeEmail('  Test@Example.COM \n'), 'test@example.com');
  assert.is(hashEmail('  Test@Example.COM '), '973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b');
  assert.is(hashEmail('   '), null);
});

test('a phone becomes digits with the country code and no leading zeros', () => {
  assert.is(normalizePhone('+48 601-234-567', '48'), '48601234567');
  assert.is(normalizePhone('0048 601 234 567', '48'), '48601234567');
  assert.is(normalizePhone('601 234 567', '48'), '48601234567');
  assert.is(normalizePhone('0601 234 567', '48'), '48601234567');
  assert.is(normalizePhone('48601234567', '48'), '48601234567');
  assert.is(normalizePhone('(+1) 212-555-1234', '48'), '12125551234');
  assert.is(normalizePhone('+44 (0) 20 7946 0958', '48'), '442079460958', 'the trunk zero in parentheses is no digit');
  assert.is(normalizePhone('0044 (0)20 7946 0958', '48'), '442079460958');
  assert.is(normalizePhone('(+44) (0) 20 7946 0958', '48'), '442079460958');
  assert.is(normalizePhone('no number', '48'), null);
  assert.is(hashPhone('+48 601 234 567', '48'), sha256Hex('48601234567'));
});

// A number written with its trunk zero is a national one, whatever digits follow: Leer's area code 0491 begins with
// Germany's calling code, and "0491 12345678" lost the country code for good (read as 49 112345678).
test('a national number written with its trunk zero always gets the country code, even when it begins with its digits', () => {
  assert.is(normalizePhone('0491 12345678', '49'), '4949112345678');
  assert.is(normalizePhone('(0491) 1234-5678', '49'), '4949112345678');
  assert.is(normalizePhone('49 1511 2345678', '49'), '4915112345678', 'without the zero: the country code written without +');
  assert.is(normalizePhone('0049 491 12345678', '49'), '4949112345678');
  assert.is(hashPhone('0491 12345678', '49'), sha256Hex('4949112345678'));
});

test('an external id is trimmed and lower-cased before hashing', () => {
  assert.is(hashExternalId('  CRM-42 '), sha256Hex('crm-42'));
  assert.is(hashExternalId(''), null);
});

test('a value that is already a SHA-256 digest is not hashed twice', () => {
  const digest = sha256Hex('48601234567');
  assert.is(hashPhone(digest, '48'), digest);
  assert.is(hashEmail(digest.toUpperCase()), digest);
  assert.is(hashExternalId(digest), digest);
});

test('toE164 accepts a country code (+ or 00) or exactly 9 national digits', () => {
  assert.is(toE164('+48 601 234 567', '48'), '+48601234567');
  assert.is(toE164('601-234-567', '48'), '+48601234567');
  assert.is(toE164('(601) 234 567', '48'), '+48601234567');
  assert.is(toE164('+48.601.234.567', '48'), '+48601234567', 'dots are separators as dashes are');
  assert.is(toE164('601.234.567', '48'), '+48601234567');
  assert.is(toE164('0044 20 7946 0958', '48'), '+442079460958');
  assert.is(toE164('+1 (212) 555-1234', '48'), '+12125551234');
  assert.is(toE164('+44 (0) 20 7946 0958', '48'), '+442079460958', 'the trunk zero in parentheses is no digit');
  assert.is(toE164('+44(0)2079460958', '48'), '+442079460958');
  // The default country code written without + or 00, then the 9 national digits.
  assert.is(toE164('48601234567', '48'), '+48601234567');
  assert.is(toE164('48 601 234 567', '48'), '+48601234567');
  assert.is(toE164('1212555123', '1'), '+1212555123');
});

test('toE164 refuses everything else', () => {
  for (const raw of ['', '12345', '60123456', '6012345678', '4860123456', '486012345678', '49601234567', '+0123456789', '+1234567', '+1234567890123456', '601 234 567 ext 5', '+48/601/234/567', '601_234_567', 'phone']) {
    assert.is(toE164(raw, '48'), null, raw);
  }
});

test.run();
