/**
 * The error codes of the public contract (spec section 7) and the one table that maps each
 * API-level code to its HTTP status. Every error body the service writes takes its code from here,
 * and the OpenAPI description documents its error responses from the same lists.
 */

/** Codes thrown as request-level errors (spec 7.1, 7.3). */
export const API_ERROR_CODES = [
  "MISSING_API_KEY",
  "INVALID_API_KEY",
  "UNAUTHORIZED",
  "INVALID_INPUT",
  "FORBIDDEN",
  "NOT_FOUND",
  "RETRY_REQUIRED",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_BUSY",
  "TIMEOUT",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Codes that end a run (spec 7.2); they travel in a 200 run response, never as an HTTP error. */
export const RUN_ERROR_CODES = [
  "SERVICE_BUSY",
  "TIMEOUT",
  "INSUFFICIENT_CREDITS",
  "CONTENT_POLICY_VIOLATION",
  "MAX_STEPS_EXCEEDED",
  "SITE_BLOCKED",
  "TASK_FAILED",
  "CANCELLED",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** Every value error.code can take anywhere (spec 7.1 lists exactly these). */
export const ERROR_CODES = [...new Set([...API_ERROR_CODES, ...RUN_ERROR_CODES])] as const;
export type ErrorCode = ApiErrorCode | RunErrorCode;

export type RunErrorCategory = "SYSTEM_FAILURE" | "AGENT_FAILURE" | "BILLING_FAILURE" | "UNKNOWN";

/** Spec 7.2: each run error code and its category (CANCELLED has none). */
export const RUN_ERROR_CATEGORY: Record<RunErrorCode, RunErrorCategory | null> = {
  SERVICE_BUSY: "SYSTEM_FAILURE",
  TIMEOUT: "SYSTEM_FAILURE",
  INSUFFICIENT_CREDITS: "BILLING_FAILURE",
  CONTENT_POLICY_VIOLATION: "AGENT_FAILURE",
  MAX_STEPS_EXCEEDED: "AGENT_FAILURE",
  SITE_BLOCKED: "AGENT_FAILURE",
  TASK_FAILED: "AGENT_FAILURE",
  CANCELLED: null,
};

/**
 * Code → HTTP status. `status` is the default; `also` lists the other statuses a code may be sent
 * with, each for a condition the contract names:
 * - INVALID_INPUT 413: the body is larger than the documented limit; 422: fetch's invalid CSS
 *   selector (spec 4.6 rule 6); 431: the request line and headers are over the local server's
 *   limit (answered before the app, containers/local/client-errors.ts).
 * - NOT_FOUND 405: the path exists but not for this method (the Allow header lists the methods).
 * - FORBIDDEN 402: search access or an active subscription is required (spec 5.7).
 * - INTERNAL_ERROR 502: an upstream the service depends on failed (browser usage, spec 4.5).
 */
export const ERROR_STATUS = {
  MISSING_API_KEY: { status: 401, also: [] },
  INVALID_API_KEY: { status: 401, also: [] },
  UNAUTHORIZED: { status: 401, also: [] },
  INVALID_INPUT: { status: 400, also: [413, 422, 431] },
  FORBIDDEN: { status: 403, also: [402] },
  NOT_FOUND: { status: 404, also: [405] },
  RETRY_REQUIRED: { status: 409, also: [] },
  RATE_LIMIT_EXCEEDED: { status: 429, also: [] },
  INTERNAL_ERROR: { status: 500, also: [502] },
  SERVICE_BUSY: { status: 503, also: [] },
  TIMEOUT: { status: 504, also: [] },
} as const satisfies Record<ApiErrorCode, { status: number; also: readonly number[] }>;

export type ErrorStatus<C extends ApiErrorCode> = (typeof ERROR_STATUS)[C]["status"] | (typeof ERROR_STATUS)[C]["also"][number];

/** The codes that can be answered with a given HTTP status (used to document responses). */
export function codesForStatus(status: number): ApiErrorCode[] {
  return API_ERROR_CODES.filter((code) => {
    const entry: { status: number; also: readonly number[] } = ERROR_STATUS[code];
    return entry.status === status || entry.also.includes(status);
  });
}

/** The fixed message of an unexpected failure: a 500 never echoes the internal cause. */
export const INTERNAL_ERROR_MESSAGE = "An unexpected error occurred. Retry later, and quote the request_id if it persists.";
