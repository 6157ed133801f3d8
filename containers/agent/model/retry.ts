import type { Logger } from "../../../functions/lib/logger.ts";
import { ModelError, type ModelProvider, type Usage } from "./types.ts";

export interface RetryOptions {
  logger: Logger;
  /** Per attempt; the caller's signal still cancels at any time. Default 120 s. */
  timeoutMs?: number;
  /** Attempts after the first. Default 4. */
  maxRetries?: number;
  /** First backoff delay; doubles per attempt, with jitter. Default 1 s. */
  baseDelayMs?: number;
  /** Largest backoff delay. Default 30 s. */
  maxDelayMs?: number;
  /**
   * A Retry-After longer than this is not waited out: the error is thrown at once (carrying
   * retryAfterSeconds) so the run can fail with a retry hint instead of sitting idle. Default 60 s.
   */
  maxRetryAfterSeconds?: number;
  /** Injected in tests; resolves after `ms` or rejects when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 4;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The delay before retry number `attempt` (0-based), or null when the error should not be retried. */
export function retryDelayMs(err: ModelError, attempt: number, opts: RetryOptions, random = Math.random): number | null {
  if (!err.retryable) return null;
  if (err.retryAfterSeconds !== undefined) {
    if (err.retryAfterSeconds > (opts.maxRetryAfterSeconds ?? 60)) return null;
    // A little jitter on top so that many workers told the same instant do not all return at once.
    return err.retryAfterSeconds * 1000 + random() * 100;
  }
  const ceiling = Math.min(opts.maxDelayMs ?? 30_000, (opts.baseDelayMs ?? 1000) * 2 ** attempt);
  return ceiling / 2 + (random() * ceiling) / 2;
}

/**
 * Wraps a single-attempt provider with a per-attempt timeout and retries. The caller's abort is
 * passed through as its own reason (not a ModelError) so a cancelled run is not mistaken for an
 * outage.
 */
export function withRetries(inner: ModelProvider, opts: RetryOptions): ModelProvider {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
  const sleep = opts.sleep ?? abortableSleep;
  return {
    name: inner.name,
    async complete(req, signal) {
      const started = Date.now();
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        const timeout = AbortSignal.timeout(timeoutMs);
        const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
        let error: ModelError;
        try {
          const res = await inner.complete(req, combined);
          opts.logger.debug("model call", {
            provider: inner.name,
            attempts: attempt + 1,
            ms: Date.now() - started,
            input_tokens: res.usage.inputTokens,
            output_tokens: res.usage.outputTokens,
            stop: res.stopReason,
          });
          return res;
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          if (err instanceof ModelError) error = err;
          else if (timeout.aborted) {
            error = new ModelError("timeout", `${inner.name}: no answer within ${timeoutMs} ms`, { cause: err });
          } else throw err;
        }
        const delay = attempt < maxRetries ? retryDelayMs(error, attempt, opts, opts.random) : null;
        if (delay === null) throw error;
        opts.logger.warn("model call failed; retrying", {
          provider: inner.name,
          kind: error.kind,
          status: error.status,
          attempt: attempt + 1,
          delay_ms: Math.round(delay),
        });
        await sleep(delay, signal);
      }
    },
  };
}

/** Sums token usage across calls (one meter per run, say). */
export class UsageMeter {
  inputTokens = 0;
  outputTokens = 0;
  calls = 0;

  add(usage: Usage): void {
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    this.calls += 1;
  }

  get totalTokens(): number {
    return this.inputTokens + this.outputTokens;
  }

  snapshot(): Usage & { calls: number } {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens, calls: this.calls };
  }
}

/** A provider that records every successful call's usage on `meter`. */
export function withUsageMeter(inner: ModelProvider, meter: UsageMeter): ModelProvider {
  return {
    name: inner.name,
    async complete(req, signal) {
      const res = await inner.complete(req, signal);
      meter.add(res.usage);
      return res;
    },
  };
}
