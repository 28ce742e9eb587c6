// Customer information normalised and SHA-256 hashed the way the platform documents it, plus E.164 for storage.
import { hash } from 'node:crypto';

const SHA256_HEX = /^[0-9a-f]{64}$/;

// One-shot hashing: half the cost of a Hash object for these short texts (a POST /events makes six digests).
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** True for a value that is already a SHA-256 hex digest (the platform takes those as they are). */
export function isSha256Hex(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** Trimmed and lower-cased; null when nothing is left. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email === '' ? null : email;
}

/**
 * An international number without the trunk zero some write in parentheses after the country code
 * ("+44 (0) 20 7946 0958"): dialled from abroad it is left out, so it is no digit of the number.
 */
function withoutTrunkZero(raw: string): string {
  return /^\s*\(?\s*(?:\+|00)/.test(raw) ? raw.replace(/\(\s*0\s*\)/, '') : raw;
}

/**
 * Digits only, with the country calling code and no leading zeros ("+48 601-234-567" -> "48601234567").
 * A number written with + or 00 already carries its country code. Without them, a number of more than
 * 9 digits that starts with the default code is taken as carrying it too, unless it is written with its
 * trunk zero (a national number whose area code begins with the code's digits: "0491 12345678", "49");
 * anything else is a national number: its trunk zeros go and the default code is put in front
 * ("0601 234 567", "48" -> "48601234567"). Null when no digit is left.
 */
export function normalizePhone(raw: string, defaultCountryCode: string): string | null {
  const trimmed = withoutTrunkZero(raw).trim();
  const international = /^\(?\s*(?:\+|00)/.test(trimmed);
  const trunkZero = !international && /^\D*0/.test(trimmed);
  const digits = trimmed.replace(/\D/g, '').replace(/^0+/, '');
  if (digits === '') return null;
  if (international) return digits;
  if (!trunkZero && digits.length > 9 && digits.startsWith(defaultCountryCode)) return digits;
  return `${defaultCountryCode.replace(/\D/g, '')}${digits}`;
}

export function normalizeExternalId(raw: string): string | null {
  const id = raw.trim().toLowerCase();
  return id === '' ? null : id;
}

// Each hash function passes through a value that is already a SHA-256 digest, so data stored hashed
// (the service keeps e-mails and phones hashed) is never hashed twice.
export function hashEmail(raw: string): string | null {
  const email = normalizeEmail(raw);
  if (email === null) return null;
  return isSha256Hex(email) ? email : sha256Hex(email);
}

export function hashPhone(raw: string, defaultCountryCode: string): string | null {
  if (isSha256Hex(raw.trim())) return raw.trim();
  const phone = normalizePhone(raw, defaultCountryCode);
  return phone === null ? null : sha256Hex(phone);
}

export function hashExternalId(raw: string): string | null {
  const id = normalizeExternalId(raw);
  if (id === null) return null;
  return isSha256Hex(id) ? id : sha256Hex(id);
}

/**
 * A contact's phone in E.164 ("+48601234567"), or null when the input is not a phone number we accept:
 * either with a country code (leading + or 00, then 8-15 digits, the first not 0), or exactly 9 national
 * digits for the default country, or those 9 digits after the default country code written without + or 00
 * ("48601234567", read so by normalizePhone too). Spaces, dashes, dots and parentheses are ignored (the
 * separators people write: "601.234.567" as much as "601-234-567"); anything else is refused.
 */
export function toE164(raw: string, defaultCountryCode: string): string | null {
  const compact = withoutTrunkZero(raw).trim().replace(/[\s\-.()]/g, '');
  const code = defaultCountryCode.replace(/\D/g, '');
  let digits: string;
  if (compact.startsWith('+')) digits = compact.slice(1);
  else if (compact.startsWith('00')) digits = compact.slice(2);
  else if (/^\d{9}$/.test(compact)) digits = `${code}${compact}`;
  else if (code !== '' && compact.length === code.length + 9 && compact.startsWith(code) && /^\d+$/.test(compact)) digits = compact;
  else return null;
  return /^[1-9]\d{7,14}$/.test(digits) ? `+${digits}` : null;
}
