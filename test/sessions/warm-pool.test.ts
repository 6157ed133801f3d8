import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { ChromiumProcess } from "../../containers/browser/chromium-process.ts";
import { createWarmPool } from "../../containers/sessions/warm-pool.ts";
import { waitFor } from "../helpers/wait.ts";

/**
 * The warm pool's bookkeeping, with launches the test controls (a launch resolves when the test
 * says so): what it keeps ready, what a session gets from an empty pool, what it replaces and what
 * it ends. Real Chromium behind it is covered by the session tests.
 */

interface FakeProc {
  proc: ChromiumProcess;
  id: number;
  terminated: boolean;
  die(): void;
}

function controlledLaunches() {
  const made: FakeProc[] = [];
  const pending: ((p: ChromiumProcess) => void)[] = [];
  let failNext = false;
  const launch = (): Promise<ChromiumProcess> =>
    new Promise((resolve, reject) => {
      if (failNext) {
        failNext = false;
        return reject(new Error("no chromium"));
      }
      pending.push(resolve);
    });
  const finishOne = () => {
    const resolve = pending.shift();
    if (!resolve) throw new Error("no launch is pending");
    const browser = new EventEmitter() as EventEmitter & { connected: boolean };
    browser.connected = true;
    const fake: FakeProc = {
      id: made.length + 1,
      terminated: false,
      proc: {
        browser,
        terminate: async () => {
          fake.terminated = true;
        },
      } as unknown as ChromiumProcess,
      die() {
        browser.connected = false;
        browser.emit("disconnected");
      },
    };
    made.push(fake);
    resolve(fake.proc);
    return fake;
  };
  return { launch, finishOne, made, pending: () => pending.length, failNext: () => (failNext = true) };
}

describe("the warm pool", () => {
  it("launches nothing before start, fills to its size one launch at a time, and hands out ready processes", async () => {
    const l = controlledLaunches();
    const pool = createWarmPool({ size: 2, launch: l.launch });
    expect(l.pending()).toBe(0);
    pool.start();
    await waitFor(() => l.pending() === 1);
    l.finishOne();
    await waitFor(() => l.pending() === 1);
    expect(pool.stats()).toMatchObject({ ready: 1, launching: true });
    l.finishOne();
    await pool.filled();
    expect(pool.stats()).toMatchObject({ ready: 2, launches: 2 });
    const first = await pool.take();
    expect(first).toMatchObject({ warm: true });
    expect(first.proc).toBe(l.made[0]?.proc);
    // The taken one is replaced in the background; a launch under way at close is ended when it lands.
    await waitFor(() => l.pending() === 1);
    const closing = pool.close();
    const late = l.finishOne();
    await closing;
    expect(late.terminated).toBe(true);
    expect(l.made.slice(1, 2).every((f) => f.terminated)).toBe(true);
  });

  it("a session on an empty pool gets the launch already under way instead of starting a second", async () => {
    const l = controlledLaunches();
    const pool = createWarmPool({ size: 1, launch: l.launch });
    pool.start();
    await waitFor(() => l.pending() === 1);
    const taking = pool.take();
    await new Promise((r) => setTimeout(r, 20));
    expect(l.pending()).toBe(1);
    const fake = l.finishOne();
    expect(await taking).toEqual({ proc: fake.proc, warm: false });
    // Then the pool refills for the next one.
    await waitFor(() => l.pending() === 1);
    expect(pool.stats().launches).toBe(2);
    const closing = pool.close();
    l.finishOne();
    await closing;
  });

  it("drops and replaces a ready process that dies, and terminates the ready ones on close", async () => {
    const l = controlledLaunches();
    const pool = createWarmPool({ size: 1, launch: l.launch });
    pool.start();
    await waitFor(() => l.pending() === 1);
    const dead = l.finishOne();
    await pool.filled();
    dead.die();
    expect(dead.terminated).toBe(true);
    await waitFor(() => l.pending() === 1);
    const next = l.finishOne();
    await pool.filled();
    expect((await pool.take()).proc).toBe(next.proc);
    await waitFor(() => l.pending() === 1);
    const spare = l.finishOne();
    await pool.filled();
    await pool.close();
    expect(spare.terminated).toBe(true);
    await expect(pool.take()).rejects.toThrow(/closed/);
  });

  it("with size 0 every session launches its own, and a failed launch is the caller's error", async () => {
    const l = controlledLaunches();
    const pool = createWarmPool({ size: 0, launch: l.launch });
    pool.start();
    expect(l.pending()).toBe(0);
    const taking = pool.take();
    await waitFor(() => l.pending() === 1);
    const fake = l.finishOne();
    expect(await taking).toEqual({ proc: fake.proc, warm: false });
    l.failNext();
    await expect(pool.take()).rejects.toThrow(/no chromium/);
    await pool.close();
  });
});
