import type { SendResult } from "./send.ts";

/**
 * How one webhook attempt is judged (spec 6.2.6) and when the next one is due.
 *
 * Outcomes of one attempt:
 * - 2xx: acknowledged, the delivery is `delivered`.
 * - any other non-2xx status (3xx, 408, 429, 5xx), network, DNS and TLS errors, and no response
 *   within `timeoutMs` (10 s, spec section 8): retried on the schedule. A 429's Retry-After is
 *   honoured when it asks for longer than the next backoff, up to MAX_RETRY_AFTER_MS.
 * - 4xx other than 408 and 429: failed at once (spec 6.2.6).
 * - 3xx: redirects are never followed (following one would let a receiver point our signed POST
 *   somewhere else, past the address policy's view of the URL the customer gave). Spec 6.2.6 says
 *   every non-2xx response except a 4xx is retried, so a 3xx is recorded as an attempt (outcome
 *   `retry`, the error naming the Location) and retried like a 5xx; a receiver that keeps
 *   redirecting ends `failed` when the schedule runs out.
 * - a URL that is not https, or whose host or resolved address the address policy refuses: failed
 *   at once, without connecting (the attempt is recorded with the reason).
 */

/**
 * Delays before retries 1..8, after the first attempt: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h,
 * 6 h (the shape Svix and Stripe use). Nine attempts in all over about 10 h 42 min; a delivery
 * still unacknowledged after the last one is `failed`.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  3 * 60 * 60_000,
  6 * 60 * 60_000,
];

/** Spec section 8: the service waits up to 10 seconds for a response. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** A 429's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60_000;
/** Added to the send timeout in a claim, so a claim outlives the attempt it covers. */
export const CLAIM_MARGIN_MS = 30_000;
export const WEBHOOK_USER_AGENT = "Osprey-Webhooks/1.0";
/** Longest text kept in webhook_attempts.error and webhook_deliveries.last_error. */
export const MAX_ERROR_CHARS = 500;

export type Outcome = "acknowledged" | "retry" | "failed";

export interface Verdict {
  outcome: Outcome;
  statusCode: number | null;
  error: string | null;
  /** A 429's requested wait, in ms. */
  retryAfterMs: number | null;
}

export const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text);

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

export function judge(result: SendResult, now: Date): Verdict {
  if (result.kind === "refused") return { outcome: "failed", statusCode: null, error: result.error, retryAfterMs: null };
  if (result.kind === "network") return { outcome: "retry", statusCode: null, error: result.error, retryAfterMs: null };
  const status = result.status;
  if (status >= 200 && status < 300) return { outcome: "acknowledged", statusCode: status, error: null, retryAfterMs: null };
  const snippet = result.body.subarray(0, 200).toString("utf8").replace(/\s+/g, " ").trim();
  const error = `HTTP ${status}${snippet ? `: ${snippet}` : ""}`;
  if (status >= 300 && status < 400) {
    const location = result.headers.location ? ` to ${result.headers.location}` : "";
    return {
      outcome: "retry",
      statusCode: status,
      error: `HTTP ${status} redirect${location} (redirects are not followed)`,
      retryAfterMs: null,
    };
  }
  if (status === 408 || status === 429) {
    const retryAfterMs = status === 429 ? parseRetryAfter(result.headers["retry-after"], now) : null;
    return { outcome: "retry", statusCode: status, error, retryAfterMs };
  }
  if (status >= 400 && status < 500) return { outcome: "failed", statusCode: status, error, retryAfterMs: null };
  return { outcome: "retry", statusCode: status, error, retryAfterMs: null };
}

export interface Settled {
  outcome: Outcome;
  /** When the next attempt is due; null unless the outcome is `retry`. */
  nextAttemptAt: Date | null;
  /** The delivery's new status. */
  status: "delivered" | "failed" | "pending";
  /** The verdict's error, clipped to MAX_ERROR_CHARS. */
  error: string | null;
}

/**
 * Applies the retry schedule to a verdict: a retry with no delay left for `attempt` (1-based)
 * fails; otherwise the next attempt waits the scheduled delay, or a 429's longer Retry-After
 * (capped at MAX_RETRY_AFTER_MS), from `finishedAt`.
 */
export function settle(verdict: Verdict, attempt: number, schedule: readonly number[], finishedAt: Date): Settled {
  let outcome = verdict.outcome;
  let nextAttemptAt: Date | null = null;
  if (outcome === "retry") {
    const delay = schedule[attempt - 1];
    if (delay === undefined) outcome = "failed";
    else {
      const wait = Math.max(delay, Math.min(verdict.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
      nextAttemptAt = new Date(finishedAt.getTime() + wait);
    }
  }
  const status = outcome === "acknowledged" ? "delivered" : outcome === "failed" ? "failed" : "pending";
  const error = verdict.error === null ? null : clip(verdict.error);
  return { outcome, nextAttemptAt, status, error };
}
