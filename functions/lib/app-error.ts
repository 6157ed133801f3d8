import { type ApiErrorCode, ERROR_STATUS, type ErrorStatus } from "../../schema/errors.ts";

/** One validation issue in `error.details` (spec 7.1): the shape of a zod 4 issue, minus its input. */
export interface ErrorDetail {
  code: string;
  path: (string | number)[];
  message: string;
  expected?: string;
  values?: unknown[];
  [extra: string]: unknown;
}

export interface AppErrorOptions<C extends ApiErrorCode> {
  details?: ErrorDetail[];
  /** Only the statuses ERROR_STATUS allows for this code. */
  status?: ErrorStatus<C>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type of a request-level failure. Throw it anywhere below a route; the error
 * handler renders `{error:{code,message,details?},request_id}` with the status from ERROR_STATUS.
 * Messages are shown to callers: say what failed and how to fix it, never internal state.
 */
export class AppError<C extends ApiErrorCode = ApiErrorCode> extends Error {
  override name = "AppError";
  readonly code: C;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: C, message: string, options: AppErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code].status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
