import { randomBytes, randomInt } from "node:crypto";

/** Crockford base32, lower-case: sortable, no ambiguous letters. */
const B32 = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Time-sortable identifiers: a prefix, 10 characters of millisecond time and 16 random ones
 * (80 bits), like a ULID. Sorting ids sorts by creation time, which keeps index inserts local.
 */
export function newId(prefix: string, now = Date.now()): string {
  return encodeId(prefix, now, randomBits());
}

function randomBits(): bigint {
  let bits = 0n;
  for (const b of randomBytes(10)) bits = (bits << 8n) | BigInt(b);
  return bits;
}

function encodeId(prefix: string, now: number, bits: bigint): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = B32[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = "";
  for (let i = 0, b = bits; i < 16; i++) {
    random = B32[Number(b & 31n)] + random;
    b >>= 5n;
  }
  return `${prefix}_${time}${random}`;
}

const RANDOM_MAX = (1n << 80n) - 1n;
let lastTime = -1;
let lastBits = 0n;

/**
 * As newId, but the ids one process makes within one millisecond still sort in the order they were
 * made: the next takes the previous one's random part plus one (ULID's monotonic rule). For rows
 * ordered by a timestamp with millisecond resolution (PGlite's now()) and then by id.
 */
export function newSequentialId(prefix: string, now = Date.now()): string {
  if (now === lastTime && lastBits < RANDOM_MAX) lastBits += 1n;
  else {
    lastTime = now;
    lastBits = randomBits() >> 1n; // room to count up within the millisecond
  }
  return encodeId(prefix, now, lastBits);
}

export interface IdGenerator {
  account(): string;
  apiKey(): string;
  request(): string;
  fetchUsage(): string;
}

export const defaultIds: IdGenerator = {
  account: () => newId("acct"),
  apiKey: () => newId("key"),
  request: () => newId("req"),
  fetchUsage: () => newId("fu"),
};

const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` characters of base62 drawn uniformly (no modulo bias) from the CSPRNG. */
export function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += B62[randomInt(62)];
  return out;
}
