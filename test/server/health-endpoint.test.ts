import { describe, expect, it } from "vitest";
import { startHealthEndpoint } from "../../containers/worker/health-endpoint.ts";

describe("worker health endpoint", () => {
  it("answers 200 while the worker takes runs, 503 while it drains, 404 elsewhere", async () => {
    let accepting = true;
    const health = await startHealthEndpoint({
      host: "127.0.0.1",
      port: 0,
      state: { accepting: () => accepting, details: () => ({ worker: "wrk_test", runs_in_flight: 1 }) },
    });
    try {
      const url = `http://127.0.0.1:${health.port}`;
      const ok = await fetch(`${url}/healthz`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("cache-control")).toBe("no-store");
      expect(await ok.json()).toEqual({ status: "ok", worker: "wrk_test", runs_in_flight: 1 });
      accepting = false;
      const draining = await fetch(`${url}/healthz`);
      expect(draining.status).toBe(503);
      expect(await draining.json()).toMatchObject({ status: "draining" });
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/healthz`, { method: "POST" })).status).toBe(404);
    } finally {
      await health.close();
    }
  });

  it("refuses to start on a port that is taken", async () => {
    const first = await startHealthEndpoint({
      host: "127.0.0.1",
      port: 0,
      state: { accepting: () => true, details: () => ({}) },
    });
    try {
      await expect(
        startHealthEndpoint({ host: "127.0.0.1", port: first.port, state: { accepting: () => true, details: () => ({}) } }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
