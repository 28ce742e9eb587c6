// Event ids the store generates: UUIDv7 (RFC 9562), time-ordered, so that new ids land at the right
// edge of the unique index on event ids instead of on random pages.
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

// Random bits are drawn from the system in blocks: one randomBytes call per event cost more than the rest
// of the id (a POST appends two events or more).
const POOL_IDS = 512;
let pool = Buffer.alloc(0);
let taken = POOL_IDS;

function randomTail(): Buffer {
  if (taken === POOL_IDS) {
    pool = randomBytes(8 * POOL_IDS);
    taken = 0;
  }
  return pool.subarray(8 * taken, 8 * ++taken);
}

export function newEventId(): string {
  const now = Date.now();
  // A 12-bit counter keeps ids made within one millisecond in order.
  if (now === lastMs) counter = (counter + 1) & 0xfff;
  else {
    lastMs = now;
    counter = 0;
  }
  const ms = now.toString(16).padStart(12, '0');
  const rand = randomTail();
  rand[0] = (rand[0] & 0x3f) | 0x80;
  const tail = rand.toString('hex');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${counter.toString(16).padStart(3, '0')}-${tail.slice(0, 4)}-${tail.slice(4, 16)}`;
}
