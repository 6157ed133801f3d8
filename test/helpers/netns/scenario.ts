import { REPORT_PREFIX } from "./netns.ts";

/**
 * Helpers for scenario scripts (run by runInNetns inside the namespace). A scenario gathers what it
 * observed and prints it once with `report()`; the vitest file asserts on the report, so the
 * assertions and their messages live in the test, and a scenario that dies prints no report.
 */

/** Prints the scenario's one report line (runInNetns returns it parsed). */
export function report(data: unknown): void {
  process.stdout.write(`${REPORT_PREFIX}${JSON.stringify(data)}\n`);
}

/** The errno-style code of a failure, looking through fetch's `cause`; null when there is none. */
export function errorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return null;
}

/** Runs `fn` and reports how it went and how long it took, instead of throwing. */
export async function attempt<T>(
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T; ms: number } | { ok: false; code: string | null; message: string; ms: number }> {
  const started = performance.now();
  try {
    const value = await fn();
    return { ok: true, value, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, code: errorCode(err), message, ms: Math.round(performance.now() - started) };
  }
}
