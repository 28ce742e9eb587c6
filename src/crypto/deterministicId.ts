// Ids derived from content: the same inputs always name the same record, so a repeat lands on the same stream.
import { hash } from 'node:crypto';

/** A version-5-shaped UUID from the SHA-256 of the parts (joined with a separator no part can hold). */
export function uuidFromParts(...parts: string[]): string {
  const hex = hash('sha256', parts.join('\u0000'), 'hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
