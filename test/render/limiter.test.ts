import { describe, expect, it } from "vitest";
import { createLimiter, raceAbort } from "../../containers/browser/limiter.ts";
import { unavailableRenderer } from "../../functions/fetch/renderer.ts";

describe("createLimiter", () => {
  it("grants up to max slots at once and hands them on in FIFO order", async () => {
    const limiter = createLimiter(2);
    const a = await limiter.acquire();
    await limiter.acquire();
    const order: string[] = [];
    const c = limiter.acquire().then((release) => {
      order.push("c");
      return release;
    });
    const d = limiter.acquire().then((release) => {
      order.push("d");
      return release;
    });
    expect({ active: limiter.active, queued: limiter.queued }).toEqual({ active: 2, queued: 2 });
    a();
    a(); // a second release of the same slot is ignored
    (await c)();
    (await d)();
    expect(order).toEqual(["c", "d"]);
    expect(limiter.active).toBe(1);
  });

  it("drops a waiter whose signal aborts, without taking its slot", async () => {
    const limiter = createLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    expect(limiter.queued).toBe(0);
    held();
    expect(limiter.active).toBe(0);
    await expect(limiter.acquire(controller.signal)).rejects.toThrow("gave up");
  });

  it("rejects every waiter on rejectAll and refuses a bad size", async () => {
    const limiter = createLimiter(1);
    await limiter.acquire();
    const waiting = limiter.acquire();
    limiter.rejectAll(new Error("closed"));
    await expect(waiting).rejects.toThrow("closed");
    expect(() => createLimiter(0)).toThrow(RangeError);
  });
});

describe("raceAbort", () => {
  it("answers with the fallback when the signal aborts first, else with the work", async () => {
    const controller = new AbortController();
    const never = new Promise<string>(() => {});
    const raced = raceAbort(never, controller.signal, () => "aborted");
    controller.abort();
    expect(await raced).toBe("aborted");
    expect(await raceAbort(Promise.resolve("done"), new AbortController().signal, () => "aborted")).toBe("done");
  });
});

describe("unavailableRenderer", () => {
  it("fails every render with render_unavailable and says why", async () => {
    const renderer = unavailableRenderer("no Chromium found (install chromium or set CHROME_PATH)");
    expect(renderer.available).toBe(false);
    expect(renderer.description).toBe("none: no Chromium found (install chromium or set CHROME_PATH)");
    const r = await renderer.render({ url: "https://example.com/", timeoutMs: 1000, isAllowed: async () => true });
    expect(r).toMatchObject({ ok: false, error: "render_unavailable" });
    await renderer.close();
  });
});
