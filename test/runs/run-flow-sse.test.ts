import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { type Json, loginSteps, readSse, useRunSuite } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: whole runs through the streaming entry point (/v1/automation/run-sse), against
 * the fixture site, real Chromium, the Postgres queue and an in-process worker: the event stream,
 * heartbeats, a client that goes away, and errors before acceptance.
 * The scripted model finds each element it needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("streamed runs (/run-sse) on $driver", ({ open }) => {
  const s = useRunSuite(open);

  it("/run-sse streams STARTED, STREAMING_URL, one PROGRESS per step with its purpose, and COMPLETE last", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-sse", s.body());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    expect(s.errors).toEqual([]);
    const types = events.map((e) => e.type).filter((t) => t !== "HEARTBEAT");
    expect(types).toEqual(["STARTED", "STREAMING_URL", "PROGRESS", "PROGRESS", "PROGRESS", "PROGRESS", "COMPLETE"]);
    const runId = events[0]?.run_id;
    for (const e of events) {
      expect(e.run_id).toBe(runId);
      expect(Date.parse(String(e.timestamp))).not.toBeNaN();
    }
    const progress = events.filter((e) => e.type === "PROGRESS");
    expect(progress.map((e) => e.purpose)).toEqual([
      "type for the test",
      "type for the test",
      "click for the test",
      "done for the test",
    ]);
    expect(events.find((e) => e.type === "STREAMING_URL")?.streaming_url).toMatch(/\/v1\/live\/[A-Za-z0-9]{32}$/);
    expect(events.at(-1)).toMatchObject({
      type: "COMPLETE",
      status: "COMPLETED",
      result: { greeting: "Welcome, Ada" },
      error: null,
    });
  });

  it("/run-sse sends HEARTBEAT while nothing else happens, and a client that goes away does not stop the run", async () => {
    // The first model call of each run takes a while: the stream keeps the connection alive meanwhile.
    const steps = [...login];
    let i = 0;
    s.h.model.setScript(async (t) => {
      if (i === 0) await new Promise((r) => setTimeout(r, 1200));
      const step = steps[i++];
      if (!step) throw new Error("script ended");
      return step(t);
    });
    const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-sse", s.body());
    const events = await readSse(res);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("STARTED");
    expect(types.at(-1)).toBe("COMPLETE");
    const firstProgress = types.indexOf("PROGRESS");
    expect(types.slice(0, firstProgress)).toContain("HEARTBEAT");
    const beat = events.find((e) => e.type === "HEARTBEAT");
    expect(Object.keys(beat ?? {}).sort()).toEqual(["run_id", "timestamp", "type"]);

    // Disconnect right after the first event: the run still completes.
    i = 0;
    const abort = new AbortController();
    const res2 = await s.h.ctx.app.request("/v1/automation/run-sse", {
      method: "POST",
      headers: { "x-api-key": s.key, "content-type": "application/json" },
      body: JSON.stringify(s.body()),
      signal: abort.signal,
    });
    const reader = res2.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    const runId = JSON.parse(first.replace(/^data: /, "").trim()).run_id as string;
    await reader?.cancel();
    abort.abort();
    const done = await s.h.ctx.runs.service.waitTerminal(runId, 60_000);
    expect(done.status).toBe("COMPLETED");
  });

  it("/run-sse answers errors before acceptance as ordinary JSON error responses", async () => {
    const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-sse", { url: "nope", goal: "" });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await res.json()) as Json).error.code).toBe("INVALID_INPUT");
  });
});
