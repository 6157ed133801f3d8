import { describe, expect, it } from "vitest";
import { waitAtMost } from "../../functions/lib/wait.ts";

// The bounded waits on work that goes on without the caller (index writes, the feed at shutdown).
describe("waitAtMost (functions/lib/wait.ts)", () => {
  it("answers true as soon as the promise settles, false when the time runs out first", async () => {
    const started = performance.now();
    expect(await waitAtMost(new Promise((r) => setTimeout(r, 10)), 5_000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await waitAtMost(new Promise(() => {}), 30)).toBe(false);
    await expect(waitAtMost(Promise.reject(new Error("write failed")), 1_000)).rejects.toThrow("write failed");
  });
});
