import { describe, expect, it } from "vitest";
import { tokenBuckets } from "../../functions/lib/token-bucket.ts";
import { TestClock } from "../helpers/app.ts";

/** The in-memory limiter of a live view's input: a burst of `rate`, then `rate` a second, per key. */
describe("tokenBuckets", () => {
  it("lets a burst of rate through, then one per 1/rate s, and says how long to wait", () => {
    const clock = new TestClock();
    const limit = tokenBuckets({ ratePerSecond: 10, clock });
    for (let i = 0; i < 10; i++) expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(1);
    expect(limit.take("b")).toBe(0);
    clock.advance(100);
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(1);
    // A full second refills the bucket, never past its size.
    clock.advance(5_000);
    for (let i = 0; i < 10; i++) expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(1);
  });

  it("a clock that goes back takes nothing away", () => {
    const clock = new TestClock();
    const limit = tokenBuckets({ ratePerSecond: 2, clock });
    expect(limit.take("a")).toBe(0);
    clock.advance(-60_000);
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(1);
  });

  it("past 10,000 keys, full buckets are dropped (at most once a second) and an emptied one is kept", () => {
    const clock = new TestClock();
    const limit = tokenBuckets({ ratePerSecond: 5, clock });
    for (let i = 0; i < 10_000; i++) limit.take(`k${i}`);
    expect(limit.size()).toBe(10_000);
    clock.advance(1_000);
    for (let i = 0; i < 5; i++) expect(limit.take("busy")).toBe(0);
    // That take pruned (a second since the last): every k… is full again and goes; "busy" is empty and stays.
    expect(limit.size()).toBe(1);
    expect(limit.take("busy")).toBe(1);
    expect(limit.take("fresh")).toBe(0);
    expect(limit.size()).toBe(2);
  });
});
