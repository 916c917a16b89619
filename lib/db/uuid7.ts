/**
 * Time-ordered UUIDs (RFC 9562 version 7) for primary keys of tables that grow by large batches: proposal items.
 *
 * A random (version 4) key lands on a random leaf of the primary key's B-tree, so a batch of 15,000 rows dirties
 * nearly every leaf of an index that holds every earlier batch: storing one proposal's items cost more with every
 * proposal stored before (docs/BENCHMARKS.md, "## Engineer", 2026-12-03 13:20 UTC: at 202 stored proposals, 10,800 full-page
 * images and 78 MB of WAL for one proposal's 15,000 items, against 445 and 18 MB with time-ordered keys). Keys that
 * grow with time go to the right edge of the index: a batch touches the few leaves it fills, however many came before.
 *
 * Layout: 48 bits of Unix milliseconds, the version (7), 12 bits of a counter, the variant (10), 62 random bits. The
 * counter keeps the ids one process makes in the same millisecond increasing (RFC 9562, method 1: started at a random
 * value below half its range each new millisecond, so it seldom runs out; when it does, the timestamp moves on by one).
 * Postgres 14 and later store them as any uuid (`uuidv7()` itself is Postgres 18 only).
 */
import { randomFillSync } from "node:crypto";

let lastMs = -1;
let counter = 0;
const random = new Uint8Array(10);
const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A version 7 UUID, greater than every earlier one this process made (as text; compared as Postgres compares uuids). */
export function uuidv7(now: number = Date.now()): string {
  randomFillSync(random);
  if (now > lastMs) {
    lastMs = now;
    counter = ((random[0] << 4) | (random[1] >> 4)) & 0x7ff; // 11 random bits: at least 2,048 more in this millisecond
  } else {
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1; // a clock that went back, or 4,096 ids in one millisecond: borrow the next one
      counter = 0;
    }
  }
  const ms = lastMs;
  const b = new Uint8Array(16);
  // 48-bit big-endian milliseconds (Math.floor: numbers above 2^32 have no bitwise shifts)
  const high = Math.floor(ms / 0x100000000);
  const low = ms >>> 0;
  b[0] = (high >>> 8) & 0xff;
  b[1] = high & 0xff;
  b[2] = low >>> 24;
  b[3] = (low >>> 16) & 0xff;
  b[4] = (low >>> 8) & 0xff;
  b[5] = low & 0xff;
  b[6] = 0x70 | (counter >>> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (random[2] & 0x3f);
  for (let i = 9; i < 16; i++) b[i] = random[i - 6];
  let s = "";
  for (let i = 0; i < 16; i++) {
    s += hex[b[i]];
    if (i === 3 || i === 5 || i === 7 || i === 9) s += "-";
  }
  return s;
}
