import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { rateLimitRepo } from "../repos/rate-limit.repo.ts";
import type { AuthContext } from "./api-key.service.ts";

export const WINDOW_MS = 60_000;
/** Counters older than this are deleted now and then; only the current window is ever read. */
const RETAIN_MS = 5 * WINDOW_MS;
const PURGE_EVERY = 500;

/** The per-minute limits (spec 8): search in requests, fetch in URLs, browser sessions in creations. */
export type RateBucket = "search" | "fetch" | "browser";

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  /**
   * Gives the units back: for a request that was counted and then refused for another reason
   * (a refused request does not count). A no-op once the window has passed.
   */
  release(): Promise<void>;
}

const LIMIT_OF: Record<RateBucket, (a: AuthContext) => number> = {
  search: (a) => a.account.limits.searchRpm,
  fetch: (a) => a.account.limits.fetchUpm,
  browser: (a) => a.account.limits.browserSessionsPerMinute,
};

const UNIT: Record<RateBucket, string> = { search: "requests", fetch: "URLs", browser: "session creations" };

/**
 * Per-API-key limits counted in fixed one-minute windows aligned to the clock minute, shared by
 * every process through the database. A refused request consumes nothing. On refusal: 429
 * RATE_LIMIT_EXCEEDED with Retry-After (seconds to the next window) and X-RateLimit-Limit.
 */
export function rateLimitService(deps: { db: Db; clock: Clock }) {
  const repo = rateLimitRepo(deps.db);
  let calls = 0;
  return {
    async consume(auth: AuthContext, bucket: RateBucket, cost = 1): Promise<RateDecision> {
      const limit = LIMIT_OF[bucket](auth);
      const now = deps.clock.now().getTime();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      if (++calls % PURGE_EVERY === 0) await repo.purgeBefore(new Date(now - RETAIN_MS));
      const count = await repo.tryConsume(auth.keyId, bucket, new Date(windowStart), cost, limit);
      if (count === null) {
        const message =
          cost > limit
            ? `This request needs ${cost} ${UNIT[bucket]} but the ${bucket} limit is ${limit} ${UNIT[bucket]} per minute; split it.`
            : `The ${bucket} limit of ${limit} ${UNIT[bucket]} per minute for this API key is used up; retry in ${resetSeconds} s.`;
        throw new AppError("RATE_LIMIT_EXCEEDED", message, {
          headers: { "Retry-After": String(resetSeconds), "X-RateLimit-Limit": String(limit) },
        });
      }
      const window = new Date(windowStart);
      return {
        limit,
        remaining: limit - count,
        resetSeconds,
        release: () => repo.release(auth.keyId, bucket, window, cost),
      };
    },
  };
}

export type RateLimitService = ReturnType<typeof rateLimitService>;

/** The headers a successful, rate-limited response carries. */
export function rateLimitHeaders(d: Pick<RateDecision, "limit" | "remaining" | "resetSeconds">): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.resetSeconds),
  };
}
