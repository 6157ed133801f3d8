import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { longestFirst, recordedDurations } from "./order.ts";

describe("the test-file order (test/sequence)", () => {
  it("runs a file with no known duration first, then the longest recorded, and this machine's cache wins over the record", () => {
    const recorded = recordedDurations();
    expect(recorded.size).toBeGreaterThan(100);
    const [slow, fast] = [...recorded].sort((a, b) => b[1] - a[1]).map(([file]) => file) as [string, string];
    const names = (list: { file: string }[]) => list.map((f) => f.file);
    expect(names(longestFirst([{ file: fast }, { file: "test/new.test.ts" }, { file: slow }]))).toEqual([
      "test/new.test.ts",
      slow,
      fast,
    ]);
    // The cache says the fast file took longer on this machine, and a failed file goes before either.
    const order = longestFirst([
      { file: slow },
      { file: fast, cached: { duration: 1_000_000, failed: false } },
      { file: "test/broken.test.ts", cached: { duration: 10, failed: true } },
    ]);
    expect(names(order)).toEqual(["test/broken.test.ts", fast, slow]);
  });

  it("reads a missing or malformed record as no record, and skips entries that are not numbers", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "osprey-durations-"));
    expect(recordedDurations(path.join(dir, "absent.json")).size).toBe(0);
    writeFileSync(path.join(dir, "bad.json"), "{ not json");
    expect(recordedDurations(path.join(dir, "bad.json")).size).toBe(0);
    writeFileSync(path.join(dir, "mixed.json"), JSON.stringify({ "a.test.ts": 3, "b.test.ts": "slow", "c.test.ts": null }));
    expect([...recordedDurations(path.join(dir, "mixed.json"))]).toEqual([["a.test.ts", 3]]);
  });
});
