import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { INTERNAL_ERROR_MESSAGE } from "../../schema/errors.ts";
import { AppError, isAppError } from "../lib/app-error.ts";
import { postgresCode } from "../lib/error-fields.ts";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./app-env.ts";

/** Maps the HTTPExceptions Hono and its validators throw onto the contract's codes. */
function fromHttpException(err: HTTPException): AppError {
  const msg = err.message;
  if (err.status === 413) {
    return new AppError("INVALID_INPUT", "The request body is too large.", { status: 413 });
  }
  if (err.status === 415 || /Content-Type/i.test(msg)) {
    return new AppError("INVALID_INPUT", "This endpoint takes a JSON body: send it with Content-Type: application/json.");
  }
  if (/Malformed JSON/i.test(msg)) {
    return new AppError("INVALID_INPUT", "The request body is not valid JSON.");
  }
  if (err.status === 400) return new AppError("INVALID_INPUT", "The request is malformed.");
  if (err.status === 404) return new AppError("NOT_FOUND", "Not found.");
  if (err.status === 401) return new AppError("UNAUTHORIZED", "Authentication failed.");
  if (err.status === 403) return new AppError("FORBIDDEN", "Forbidden.");
  return new AppError("INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE, { cause: err });
}

/**
 * The spec 7.1 body, the one shape of every error response: renderError's, and the local server's
 * own answer to requests Node's HTTP parser refuses before the app (containers/local/client-errors.ts).
 */
export function errorBody(err: AppError, requestId: string) {
  return {
    error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
    request_id: requestId,
  };
}

/** Writes the spec 7.1 body. The one place that builds an error response from a request. */
export function renderError(c: Context<AppEnv>, err: AppError): Response {
  const requestId = c.get("requestId") ?? "";
  const res = c.json(errorBody(err, requestId), err.status as 400);
  for (const [name, value] of Object.entries(err.headers)) res.headers.set(name, value);
  if (requestId) res.headers.set("X-Request-ID", requestId);
  return res;
}

/**
 * SQLSTATEs of text the database cannot store: 22021 character_not_in_repertoire (a NUL, bytes that
 * are not UTF-8), 22P05 untranslatable_character (a NUL or lone surrogate escape in jsonb). The
 * storable-text middleware rejects such input first; one that still reaches a query came from the
 * caller all the same, so it is their 400, not our 500.
 */
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05"]);

function unstorableText(err: unknown): AppError | null {
  if (!UNSTORABLE_TEXT_CODES.has(postgresCode(err) ?? "")) return null;
  const message = "the request contains text that cannot be stored (a NUL character, or text that is not valid UTF-8)";
  return new AppError("INVALID_INPUT", `Invalid input: ${message}.`, {
    details: [{ code: "invalid_format", format: "text", path: [], message }],
    cause: err,
  });
}

/** The app's onError: known errors keep their code; anything else is a 500 that echoes nothing. */
export function errorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return function onError(err, c) {
    let appErr: AppError;
    const unstorable = unstorableText(err);
    if (isAppError(err)) appErr = err;
    else if (err instanceof HTTPException) appErr = fromHttpException(err);
    else if (unstorable) {
      appErr = unstorable;
      // Not a failure of ours, but a gap in storable-text.ts worth closing: logged, without the values.
      logger.warn("unstorable text reached the database", { request_id: c.get("requestId"), path: c.req.path, error: err });
    } else appErr = new AppError("INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE, { cause: err });
    if (appErr.status >= 500) {
      logger.error("request failed", {
        request_id: c.get("requestId"),
        method: c.req.method,
        path: c.req.path,
        error: appErr.cause ?? err,
      });
    }
    return renderError(c, appErr);
  };
}
