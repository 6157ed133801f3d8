import type { Clock } from "./clock.ts";

/**
 * Per-key token buckets in memory: `ratePerSecond` events a second on average, as many at once.
 * For limits that protect one process's work (a live view's input), not for account quotas,
 * which are counted in the database (rate-limit.service.ts).
 */
export interface TokenBuckets {
  /** Takes one token for `key`: 0 when allowed, else the whole seconds until one is back (for Retry-After). */
  take(key: string): number;
  /** Keys held now. */
  size(): number;
}

/** Past this many keys, full buckets are dropped (a full bucket and no bucket are the same). */
const PRUNE_AT = 10_000;

export function tokenBuckets(opts: { ratePerSecond: number; clock: Clock }): TokenBuckets {
  const capacity = opts.ratePerSecond;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let lastPrune = 0;
  const refill = (b: { tokens: number; at: number }, now: number) => {
    b.tokens = Math.min(capacity, b.tokens + (Math.max(0, now - b.at) / 1000) * opts.ratePerSecond);
    b.at = now;
  };
  return {
    take(key) {
      const now = opts.clock.now().getTime();
      // At most once a second, so that a flood of new keys does not make every take walk the map.
      if (buckets.size >= PRUNE_AT && now - lastPrune >= 1000) {
        lastPrune = now;
        for (const [k, b] of buckets) {
          refill(b, now);
          if (b.tokens >= capacity) buckets.delete(k);
        }
      }
      const b = buckets.get(key) ?? { tokens: capacity, at: now };
      buckets.set(key, b);
      refill(b, now);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / opts.ratePerSecond));
    },
    size: () => buckets.size,
  };
}
