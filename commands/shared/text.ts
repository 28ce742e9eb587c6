// Lengths as the specification counts them. "200 characters" are 200 Unicode code points, as JSON Schema's
// maxLength (and so the OpenAPI document) counts them: an emoji is one character, though a JavaScript
// string spends two UTF-16 units on it.
import { z } from 'zod';

/**
 * The longest name of an organisation, an API key or a source: the specification gives no limit for these, so
 * they take the one it gives the other names and notes a person types (contact name, webhook description).
 */
export const MAX_NAME_CHARS = 200;

/** The name of an organisation, an API key or a source: not blank, and at most MAX_NAME_CHARS characters. */
export const isName = (name: string): boolean => name.trim() !== '' && charCount(name) <= MAX_NAME_CHARS;

/** Code points of a string: its UTF-16 length less one for each surrogate pair. */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first `max` characters (code points) of a string: a surrogate pair is never cut in two. */
export function firstChars(s: string, max: number): string {
  return s.length <= max ? s : Array.from(s).slice(0, max).join('');
}

/** How a length rule is stated in a validation_error. */
export const charsRule = (min: number, max: number): string => (min > 0 ? `${min}-${max} characters` : `at most ${max} characters`);

/** A string of `min` to `max` characters; the OpenAPI document shows the same bounds. */
export function chars(min: number, max: number, message = charsRule(min, max)) {
  // A string no longer than max in UTF-16 units is no longer in characters, and has at least one when it
  // is not empty: counting is only needed past max (or for a minimum over 1).
  const within = (s: string) => {
    const n = s.length > max || min > 1 ? charCount(s) : s.length;
    return n >= min && n <= max;
  };
  return z.string().check(z.refine(within, { message })).meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: max });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const NUL = /\u0000/;

/**
 * The first string in a request value (or a sheet row) that PostgreSQL cannot store: a NUL character, or a lone UTF-16
 * surrogate (from a JSON \\uD800-style escape). Refused at the edge, so they are a 400 and never a failed query.
 */
export function unstorableText(value: unknown): { path: string; problem: string } | null {
  const found = findUnstorable(value);
  return found && { path: found.path.reverse().join('.').replaceAll('\u0000', '\\u0000'), problem: found.problem };
}

/** The search itself, allocating nothing on the way (it runs on every request): the path is built backwards once found. */
function findUnstorable(value: unknown): { path: string[]; problem: string } | null {
  if (typeof value === 'string') {
    if (NUL.test(value)) return { path: [], problem: 'must not contain the NUL character' };
    if (LONE_SURROGATE.test(value)) return { path: [], problem: 'must be well-formed Unicode text' };
    return null;
  }
  if (value && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const found = findUnstorable(key) ?? findUnstorable((value as Record<string, unknown>)[key]);
      if (found) {
        found.path.push(key);
        return found;
      }
    }
  }
  return null;
}

/**
 * Text from outside the API (the platform's answers, a lead export file) as PostgreSQL can store it: NUL
 * characters dropped and lone UTF-16 surrogates made U+FFFD, which jsonb and text columns refuse. The API
 * refuses such text in a request instead (400); text the platform sends cannot be sent back, and one bad
 * answer must not stop a whole import or a lead's fetch.
 */
export function storableText(s: string): string {
  return s.includes('\u0000') || LONE_SURROGATE.test(s) ? s.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\uFFFD') : s;
}

/** Every string in a JSON-like value (object keys too) made storable, as storableText does. */
export function storableStrings<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableStrings) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableStrings(v)])) as T;
  return value;
}
