/**
 * What of an error may be written to a log. Database errors carry the values of the failing
 * query: drizzle's DrizzleQueryError puts "params: …" in its message (and so in its stack) and
 * keeps `params` as a property, PGlite attaches `params` to its errors, Postgres repeats rejected
 * input in `detail` and in data-exception messages. Those values have been live-view tokens and
 * whole run requests (hardening issue), so an error is logged by a whitelist: its class, Postgres
 * code, message without parameters, query text (parameterised, cut short), stack frames and cause.
 */

/** The SQLSTATE of a database error, looked for along the `cause` chain (drizzle wraps the driver's error). */
export function postgresCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Drizzle's marker, at the start of a line or after any separator a caller may have joined lines with. */
const PARAMS_MARKER = /(^|\s)params: /;

/**
 * Removes drizzle's "params: …" part from text that may hold a query error's message (a message,
 * a stack, a string a caller built from either). Everything after the marker goes: a parameter
 * may itself contain new lines, so no later text can be trusted to be free of parameters. Text
 * that merely says "params: " loses its tail too, which costs a log line some words, nothing more.
 */
export function withoutQueryParams(text: string): string {
  const m = PARAMS_MARKER.exec(text);
  return m ? `${text.slice(0, m.index)}${m[1]}params: [redacted]` : text;
}

/** Data exceptions (class 22) quote the rejected value: `invalid input syntax for type uuid: "…"`. */
function redactDataException(message: string, code: string | undefined): string {
  if (!code?.startsWith("22")) return message;
  // The quoted value runs from the first `: "` to the closing quote at the end (as /: ".*"$/s would
  // find it: that regex is quadratic in a message repeating `: "`).
  const open = message.indexOf(': "');
  if (open >= 0 && message.length >= open + 4 && message.endsWith('"')) return `${message.slice(0, open)}: "[redacted]"`;
  // Invalid bytes, one or several: `…for encoding "UTF8": 0xc3 0x28`.
  return message.replace(/: 0x[0-9a-f]{2}(?: 0x[0-9a-f]{2})*$/i, ": [redacted]");
}

const QUERY_CHARS = 500;
const STACK_FRAMES = 8;

export interface LoggedError {
  name: string;
  message: string;
  code?: string;
  query?: string;
  stack?: string;
  cause?: LoggedError | string;
}

/** The loggable view of an error (see the file comment); nothing else of it is ever written. */
export function serializeError(err: Error, depth = 0): LoggedError {
  const own = err as Error & { code?: unknown; query?: unknown };
  const code = typeof own.code === "string" ? own.code : undefined;
  const out: LoggedError = {
    // DrizzleQueryError keeps the name "Error"; its class says more.
    name: err.name && err.name !== "Error" ? err.name : err.constructor?.name || "Error",
    message: redactDataException(withoutQueryParams(String(err.message)), code),
  };
  if (code) out.code = code;
  if (typeof own.query === "string") {
    out.query = own.query.length > QUERY_CHARS ? `${own.query.slice(0, QUERY_CHARS)}…` : own.query;
  }
  const frames = (err.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  if (frames.length) out.stack = frames.slice(0, STACK_FRAMES).join("\n");
  if (err.cause !== undefined) {
    if (err.cause instanceof Error && depth < 3) out.cause = serializeError(err.cause, depth + 1);
    else if (!(err.cause instanceof Error)) out.cause = withoutQueryParams(String(err.cause)).slice(0, QUERY_CHARS);
  }
  return out;
}
