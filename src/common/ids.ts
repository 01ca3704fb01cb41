import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Random bytes for 4,096 ids per refill. uuid's own pool holds 16 ids, and every event takes an
 * id: its `randomFillSync` was 1.4 % of the event loop's time in bench:stream's paced phase.
 */
const pool = new Uint8Array(16 * 4096);
let used = pool.length;
/** uuid's v7 state, kept here because passing our own random bytes bypasses its own. */
let lastMs = -Infinity;
let seq = 0;

/**
 * UUIDv7, so that ids sort by creation time (docs/api.md#conventions), and strictly increase
 * within this process: within one millisecond the 32-bit sequence counts up from a random start
 * (RFC 9562's method 1, as uuid does without options).
 */
export function newId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const random = pool.subarray(used, (used += 16));
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    seq = ((random[6] << 23) | (random[7] << 16) | (random[8] << 8) | random[9]) >>> 0;
  } else {
    seq = (seq + 1) >>> 0;
    // The counter wrapped: borrow the next millisecond, as uuid does.
    if (seq === 0) lastMs += 1;
  }
  return v7({ random, msecs: lastMs, seq });
}
