import { describe, expect, it } from "vitest";
import { createRouter } from "../../functions/http/create-router.ts";
import { buildOpenApiDocument } from "../../functions/http/openapi-document.ts";
import type { RunEventRow, RunRow } from "../../functions/runs/run.repo.ts";
import { eventToWire, runToWire, webhookPayload } from "../../functions/runs/run.wire.ts";
import { RUN_ERROR_HELP, type RunError, runError, runErrorHelpUrl } from "../../schema/runs.ts";

/** Spec 7.2: help_url points at this server's own reference (its "Run errors" section), not elsewhere. */

const PUBLIC = "http://127.0.0.1:8787";
const HELP = `${PUBLIC}/docs#description/run-errors`;

/** A FAILED run row with `error`: only the fields the wire reads. */
const failedRow = (error: RunError) =>
  ({
    id: "run_1",
    status: "FAILED",
    result: null,
    error,
    request: { url: "https://example.com/", goal: "g" },
    entry: "async",
    batchId: null,
    createdAt: new Date(0),
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    steps: 1,
    creditsUsed: 1,
    inputTokens: 0,
    outputTokens: 0,
    liveToken: null,
    cancelRequestedAt: null,
  }) as unknown as RunRow;

describe("run error help_url", () => {
  it("is built on the public URL (a trailing slash or not) for every code with help, and absent otherwise", () => {
    expect(runErrorHelpUrl(PUBLIC)).toBe(HELP);
    expect(runErrorHelpUrl(`${PUBLIC}/`)).toBe(HELP);
    expect(runErrorHelpUrl("https://osprey.example.org/base")).toBe(
      "https://osprey.example.org/base/docs#description/run-errors",
    );
    for (const code of Object.keys(RUN_ERROR_HELP) as (keyof typeof RUN_ERROR_HELP)[]) {
      const wire = runToWire(failedRow(runError(code, "m")), PUBLIC, new Date(2000));
      expect(wire.error).toMatchObject({ code, help_url: HELP, help_message: RUN_ERROR_HELP[code] });
    }
    // A code outside the help table (as an older or foreign row could hold): no link rather than a wrong one.
    const noHelp = runToWire(failedRow(runError("INTERNAL_ERROR" as never, "m")), PUBLIC, new Date(2000));
    expect(noHelp.error).not.toHaveProperty("help_url");
  });

  it("replaces the dead link an older stored error carries, in the run, its webhook and its COMPLETE event", () => {
    const legacy = { ...runError("TASK_FAILED", "m"), help_url: "https://osprey.dev/docs/errors#task_failed" };
    expect(runToWire(failedRow(legacy), PUBLIC, new Date(2000)).error?.help_url).toBe(HELP);
    const hook = webhookPayload(failedRow(legacy), "https://hooks.example/") as { data: { error: RunError } };
    expect(hook.data.error.help_url).toBe("https://hooks.example/docs#description/run-errors");
    const event = {
      id: 1,
      runId: "run_1",
      type: "COMPLETE",
      data: { status: "FAILED", result: null, error: legacy },
      createdAt: new Date(0),
    } as unknown as RunEventRow;
    expect(eventToWire(event, PUBLIC)).toMatchObject({ type: "COMPLETE", error: { code: "TASK_FAILED", help_url: HELP } });
    const progress = { ...event, type: "PROGRESS", data: { step: 1 } } as unknown as RunEventRow;
    expect(eventToWire(progress, PUBLIC)).not.toHaveProperty("error");
  });

  it("lands on a section of the reference that lists every code with help", () => {
    const doc = buildOpenApiDocument(createRouter(), { version: "0", surfaces: [], serverPrefix: "" });
    const description = doc.info.description ?? "";
    expect(description).toMatch(/^## Run errors$/m);
    for (const [code, help] of Object.entries(RUN_ERROR_HELP)) expect(description).toContain(`\`${code}\`: ${help}`);
  });
});
