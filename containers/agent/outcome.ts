import type { Logger } from "../../functions/lib/logger.ts";
import { runError } from "../../schema/runs.ts";
import type { RunSession } from "../browser/run-session.ts";
import { type AgentOutcome, RunAbort } from "./agent.types.ts";
import { ModelError } from "./model/types.ts";

/** How the run-level failures the loop meets become outcomes (spec 7.2). */

/** The run's wall-clock budget ran out (the abort reason of the run's own controller). */
export class DeadlineReached extends Error {
  override name = "DeadlineReached";
}

/** retry_after for failures whose cause should pass within seconds (a busy model, a crashed browser). */
export const RETRY_AFTER_SECONDS = 30;
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

export const failed = (...args: Parameters<typeof runError>): AgentOutcome => ({ status: "FAILED", error: runError(...args) });

export const taskFailed = (message: string): AgentOutcome => failed("TASK_FAILED", message);

export function timedOut(maxDurationMs: number): AgentOutcome {
  return failed("TIMEOUT", `The run did not finish within its ${Math.round(maxDurationMs / 1000)} s duration budget.`);
}

/** A model failure left after the provider's own retries (invalid_response is handled by the loop). */
export function modelFailure(err: ModelError): AgentOutcome {
  const status = err.status ? ` (HTTP ${err.status})` : "";
  switch (err.kind) {
    case "rate_limited":
    case "unavailable":
      return failed("SERVICE_BUSY", `The model provider is over capacity${status}; try again later.`, {
        retryAfter: err.retryAfterSeconds ?? RETRY_AFTER_SECONDS,
      });
    case "timeout":
      return failed("TIMEOUT", "The model provider did not answer in time.", {
        retryAfter: err.retryAfterSeconds ?? RETRY_AFTER_SECONDS,
      });
    case "auth":
    case "bad_request":
      return failed(
        "SERVICE_BUSY",
        `The model provider rejected the request${status}; the service's model configuration needs attention.`,
      );
    case "invalid_response":
      return failed("TASK_FAILED", "The model kept answering with replies that could not be used.");
  }
}

const reasonText = (reason: unknown): string =>
  typeof reason === "string" ? reason : reason instanceof Error ? reason.message : String(reason ?? "");

/**
 * The outcome for an error that escaped a step: the caller's abort (cancel or shutdown), the
 * deadline, a hook's RunAbort, a model failure, a crashed browser, or a bug (logged).
 */
export function outcomeOf(
  err: unknown,
  ctx: { signal: AbortSignal; runSignal: AbortSignal; session: RunSession; logger: Logger; maxDurationMs: number },
): AgentOutcome {
  if (err instanceof RunAbort) return { status: "FAILED", error: err.error };
  if (ctx.signal.aborted) {
    if (reasonText(ctx.signal.reason) === "cancelled") return { status: "CANCELLED" };
    return failed("SERVICE_BUSY", "The worker running this run shut down before it finished; run it again.", {
      retryAfter: SHUTDOWN_RETRY_AFTER_SECONDS,
    });
  }
  if (err instanceof DeadlineReached || ctx.runSignal.reason instanceof DeadlineReached) return timedOut(ctx.maxDurationMs);
  if (ctx.session.crashed())
    return failed("SERVICE_BUSY", "The browser crashed during the run.", { retryAfter: RETRY_AFTER_SECONDS });
  if (err instanceof ModelError) return modelFailure(err);
  ctx.logger.error("agent: unexpected error", { error: err });
  return failed("SERVICE_BUSY", "The run failed because of an internal error.", { retryAfter: RETRY_AFTER_SECONDS });
}

/** `p`, or a rejection with the signal's reason as soon as it aborts (`p` then runs on, its failure ignored). */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  p.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
