import type { z } from "zod";
import { AppError, type ErrorDetail } from "../lib/app-error.ts";

/** Issue fields that are safe and useful to return; `input` is never echoed (it may be a secret). */
const PASSTHROUGH = ["expected", "values", "minimum", "maximum", "inclusive", "origin", "format", "keys", "divisor"] as const;

/** zod 4 issues → spec 7.1 `details` entries (code, path, message, expected | values, …). */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], location?: string): ErrorDetail[] {
  return issues.map((issue) => {
    const detail: ErrorDetail = {
      code: issue.code,
      path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
      message: issue.message,
    };
    const record = issue as unknown as Record<string, unknown>;
    for (const key of PASSTHROUGH) {
      const value = record[key];
      if (value === undefined) continue;
      (detail as Record<string, unknown>)[key] = typeof value === "bigint" ? Number(value) : value;
    }
    if (location) detail.location = location;
    return detail;
  });
}

const LOCATION: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
  form: "body",
};

/** The single validation hook every router installs: a failed zod check becomes 400 INVALID_INPUT. */
export function validationHook(result: { success: boolean; error?: unknown; target?: string }): void {
  if (result.success) return;
  const error = result.error as z.ZodError;
  const location = result.target ? (LOCATION[result.target] ?? result.target) : undefined;
  const details = issuesToDetails(error.issues, location);
  const first = details[0];
  const where =
    first && first.path.length > 0 ? ` at ${location ?? "input"}.${first.path.join(".")}` : location ? ` in ${location}` : "";
  throw new AppError("INVALID_INPUT", `Invalid input${where}: ${first?.message ?? "validation failed"}`, { details });
}
