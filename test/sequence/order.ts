/**
 * The order test files start in: the longest first, so that the last minutes of a run are not one
 * long file running alone while the other worker idles. Vitest's own sequencer orders by the
 * durations it cached from the previous run on this machine, and without a cache (every CI run, a
 * fresh checkout) by file size, which put the 30-second SSRF matrix last. Here each file's duration
 * comes from this machine's cache when there is one, else from `durations.json` (recorded from a
 * full run by `record.ts`), and a file in neither runs first, as Vitest does. On the 2-core
 * development machine the suite went from 438 s to 395 s (same checkout, same two workers).
 * `sequencer.ts` hands this to Vitest; this half has no Vitest import, so its test stays cheap.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const RECORDED = path.join(import.meta.dirname, "durations.json");

/** Seconds each test file took in a recorded run, keyed by its path from the repository root. */
export function recordedDurations(file = RECORDED): Map<string, number> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    return new Map(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === "number"));
  } catch {
    return new Map();
  }
}

/** What is known of one test file: its path from the root, and this machine's last result if cached. */
export interface FileRecord {
  file: string;
  cached?: { duration: number; failed: boolean } | undefined;
}

/** `files` in the order to start them: failed last time first, then unknown, then longest first. */
export function longestFirst<T extends FileRecord>(files: T[], recorded = recordedDurations()): T[] {
  const key = (f: T) => ({
    failed: f.cached?.failed === true,
    seconds: f.cached ? f.cached.duration / 1000 : (recorded.get(f.file) ?? Number.POSITIVE_INFINITY),
  });
  const keys = new Map(files.map((f) => [f, key(f)]));
  return [...files].sort((a, b) => {
    const x = keys.get(a) as ReturnType<typeof key>;
    const y = keys.get(b) as ReturnType<typeof key>;
    if (x.failed !== y.failed) return x.failed ? -1 : 1;
    if (x.seconds === y.seconds) return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
    return y.seconds - x.seconds;
  });
}
