import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { isTerminal } from "../../../schema/runs.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { AppError } from "../../lib/app-error.ts";
import type { RunService } from "../../runs/run.service.ts";
import { eventToWire } from "../../runs/run.wire.ts";
import { type RecordedFrame, recordingKey } from "../../runs/run-artifacts.ts";
import { runRequestView } from "../../runs/run-request.schema.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import type {
  cancelRunRoute,
  getRunRoute,
  listRunsRoute,
  listStepsRoute,
  recordingFrameRoute,
  recordingRoute,
  runAsyncRoute,
  runBatchRoute,
  runRoute,
  runSseRoute,
  stepElementsRoute,
} from "./runs.routes.ts";

export interface RunHandlerDeps {
  runs: RunService;
  blobs: BlobStore;
  /** SSE keep-alive period (spec 6.1 HEARTBEAT); 15 s. */
  heartbeatMs?: number;
}

type H<R extends Parameters<typeof import("@hono/zod-openapi").createRoute>[0]> = RouteHandler<R, AppEnv>;

const stepPath = (runId: string, step: number, kind: string) => `/v1/runs/${runId}/steps/${step}/${kind}`;

export function runHandlers(deps: RunHandlerDeps) {
  const { runs } = deps;
  const heartbeatMs = deps.heartbeatMs ?? 15_000;

  const run: H<typeof runRoute> = async (c) => {
    const body = c.req.valid("json");
    const created = await runs.create(c.get("auth"), body, "run");
    // Not tied to the client's connection: a blocking run finishes even if the caller goes away.
    const done = await runs.waitTerminal(created.id, runs.blockingBudgetMs(body));
    return c.json(runs.wire(done), 200);
  };

  const runAsync: H<typeof runAsyncRoute> = async (c) => {
    const created = await runs.create(c.get("auth"), c.req.valid("json"), "async");
    return c.json(runs.wire(created), 200);
  };

  const runSse: H<typeof runSseRoute> = async (c) => {
    const created = await runs.create(c.get("auth"), c.req.valid("json"), "sse");
    c.header("x-accel-buffering", "no");
    const res = streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      let lastId = 0;
      let lastWrite = Date.now();
      const endsAt = Date.now() + runs.streamCapMs;
      // Errors end the stream here, quietly: Hono would write their message as an `error` event,
      // and an internal message is not the caller's to read. The run goes on either way; its
      // outcome is at GET /v1/runs/{id}.
      try {
        for (;;) {
          if (stop.signal.aborted || Date.now() >= endsAt) return;
          const events = await runs.eventsAfter(created.id, lastId);
          for (const e of events) {
            lastId = e.id;
            await stream.writeSSE({ data: JSON.stringify(eventToWire(e, runs.publicUrl())) });
            if (e.type === "COMPLETE") return;
          }
          if (events.length > 0) {
            lastWrite = Date.now();
            continue;
          }
          const sinceWrite = Date.now() - lastWrite;
          if (sinceWrite >= heartbeatMs) {
            const beat = { type: "HEARTBEAT", run_id: created.id, timestamp: new Date().toISOString() };
            await stream.writeSSE({ data: JSON.stringify(beat) });
            lastWrite = Date.now();
            continue;
          }
          await runs.notifierWait(created.id, Math.min(1000, heartbeatMs - sinceWrite), stop.signal);
        }
      } catch (err) {
        if (!stop.signal.aborted)
          runs.logger.warn("the SSE stream of a run ended on an error", { run_id: created.id, error: err });
      }
    });
    // no-transform: proxies must not buffer or compress the stream (Hono sets plain no-cache).
    res.headers.set("cache-control", "no-cache, no-transform");
    return res as never;
  };

  const runBatch: H<typeof runBatchRoute> = async (c) => {
    const { runs: bodies } = c.req.valid("json");
    return c.json(await runs.createBatch(c.get("auth"), bodies), 200);
  };

  const listRuns: H<typeof listRunsRoute> = async (c) => {
    const { limit, page, ...filter } = c.req.valid("query");
    return c.json((await runs.list(c.get("auth"), filter, { limit, page })) as never, 200);
  };

  const getRun: H<typeof getRunRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const { screenshots } = c.req.valid("query");
    return c.json((await runs.get(c.get("auth"), id, screenshots === "base64")) as never, 200);
  };

  const cancelRun: H<typeof cancelRunRoute> = async (c) => {
    const { id } = c.req.valid("param");
    return c.json((await runs.cancel(c.get("auth"), id)) as never, 200);
  };

  const listSteps: H<typeof listStepsRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const { row, steps } = await runs.stepsOf(c.get("auth"), id);
    return c.json(
      {
        run_id: row.id,
        steps: steps.map((s) => ({
          step: s.step,
          purpose: s.purpose,
          action: s.action,
          ok: s.ok,
          message: s.message,
          url: s.url,
          title: s.title,
          created_at: s.createdAt.toISOString(),
          timings_ms: { model: s.modelMs, action: s.actionMs, capture: s.captureMs },
          artifacts: {
            screenshot: s.screenshotKey ? stepPath(row.id, s.step, "screenshot") : null,
            html: s.htmlKey ? stepPath(row.id, s.step, "html") : null,
            elements: s.elementsKey ? stepPath(row.id, s.step, "elements") : null,
          },
        })),
      },
      200,
    );
  };

  /** One handler for the three artifact kinds: the step's blob, or 404 naming what is missing. */
  const artifact =
    (kind: "screenshot" | "html" | "elements", contentType: string): H<typeof stepElementsRoute> =>
    async (c) => {
      const { id, step } = c.req.valid("param");
      const { step: s } = await runs.stepOf(c.get("auth"), id, step);
      if (!s) throw new AppError("NOT_FOUND", `Run ${id} has no step ${step}.`);
      const key = kind === "screenshot" ? s.screenshotKey : kind === "html" ? s.htmlKey : s.elementsKey;
      const data = key ? await deps.blobs.get(key) : null;
      if (!data) throw new AppError("NOT_FOUND", `Step ${step} of run ${id} has no ${kind} (capture_config did not ask for it).`);
      return c.body(new Uint8Array(data), 200, {
        "content-type": contentType,
        "cache-control": "private, max-age=86400",
      }) as never;
    };

  /** The screencast frames the worker kept for capture_config.recording (empty while running or when none). */
  async function recordedFrames(runId: string): Promise<RecordedFrame[]> {
    const raw = await deps.blobs.get(recordingKey(runId));
    if (!raw) return [];
    try {
      const list = JSON.parse(raw.toString("utf8")) as unknown;
      return Array.isArray(list) ? (list as RecordedFrame[]) : [];
    } catch {
      return [];
    }
  }

  const recording: H<typeof recordingRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const { row, steps } = await runs.stepsOf(c.get("auth"), id);
    if (!runRequestView(row).recording) {
      throw new AppError("NOT_FOUND", `Run ${id} did not ask for a recording (capture_config.recording).`);
    }
    const frames = await recordedFrames(row.id);
    return c.json(
      {
        run_id: row.id,
        status: row.status,
        finished: isTerminal(row.status),
        started_at: row.startedAt?.toISOString() ?? null,
        video: {
          media_type: "image/jpeg",
          frames: frames.map((f, i) => ({ at_ms: f.at, path: `/v1/runs/${row.id}/recording/frames/${i + 1}` })),
        },
        steps: steps.map((s) => ({
          step: s.step,
          at: s.createdAt.toISOString(),
          purpose: s.purpose,
          action: s.action,
          ok: s.ok,
          message: s.message,
          url: s.url,
          title: s.title,
          screenshot: s.screenshotKey ? stepPath(row.id, s.step, "screenshot") : null,
        })),
      },
      200,
    );
  };

  const recordingFrame: H<typeof recordingFrameRoute> = async (c) => {
    const { id, frame } = c.req.valid("param");
    const row = await runs.owned(c.get("auth"), id);
    const f = (await recordedFrames(row.id))[frame - 1];
    const data = f ? await deps.blobs.get(f.key) : null;
    if (!data) throw new AppError("NOT_FOUND", `Run ${id} has no recording frame ${frame}.`);
    return c.body(new Uint8Array(data), 200, {
      "content-type": "image/jpeg",
      "cache-control": "private, max-age=86400",
    }) as never;
  };

  return {
    run,
    runAsync,
    recordingFrame,
    runSse,
    runBatch,
    listRuns,
    getRun,
    cancelRun,
    listSteps,
    stepScreenshot: artifact("screenshot", "image/png"),
    stepHtml: artifact("html", "text/html; charset=utf-8"),
    stepElements: artifact("elements", "application/json"),
    recording,
  };
}

export type LiveContext = Context<AppEnv>;
