import type { LogLevel } from "../config/config.ts";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function render(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  if (typeof value === "string") return /^[\w.:/@-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? "undefined";
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
