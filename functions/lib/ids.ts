import { randomBytes, randomInt } from "node:crypto";

/** Crockford base32, lower-case: sortable, no ambiguous letters. */
const B32 = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Time-sortable identifiers: a prefix, 10 characters of millisecond time and 16 random ones
 * (80 bits), like a ULID. Sorting ids sorts by creation time, which keeps index inserts local.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = B32[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(10);
  let bits = 0n;
  for (const b of rnd) bits = (bits << 8n) | BigInt(b);
  let random = "";
  for (let i = 0; i < 16; i++) {
    random = B32[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return `${prefix}_${time}${random}`;
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
