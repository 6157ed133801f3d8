import type { LogLevel } from "../config/config.ts";
import { serializeError, withoutQueryParams } from "./error-fields.ts";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Errors anywhere in a field (an `error` field, or one nested in an object or array) are written
 * through serializeError, and strings lose a query error's parameters: no call site can log the
 * values of a failed query by passing the error, its message or its stack.
 */
function safeForLog(_key: string, value: unknown): unknown {
  if (value instanceof Error) return serializeError(value);
  if (typeof value === "string") return withoutQueryParams(value);
  return value;
}

function render(value: unknown): string {
  if (typeof value === "string") {
    const text = withoutQueryParams(value);
    return /^[\w.:/@-]+$/.test(text) ? text : JSON.stringify(text);
  }
  try {
    return JSON.stringify(value, safeForLog) ?? "undefined";
  } catch {
    // A cycle or a bigint: the line is still written, without this field's value.
    return '"[unserializable]"';
  }
}

/** A logfmt-style logger writing one line per event to a stream (stderr by default). */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const at =
    (lvl: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      if (ORDER[lvl] < ORDER[level]) return;
      const parts = [`time=${new Date().toISOString()}`, `level=${lvl}`, `msg=${render(msg)}`];
      for (const [k, v] of Object.entries(fields)) parts.push(`${k}=${render(v)}`);
      write(`${parts.join(" ")}\n`);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
