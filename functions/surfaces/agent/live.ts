import { randomBytes } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import { livePage, livePageHeaders } from "../../http/live-page.ts";
import { AppError } from "../../lib/app-error.ts";
import type { RunService } from "../../runs/run.service.ts";
import { liveFrameKey } from "../../runs/run-artifacts.ts";
import type { BlobStore } from "../../storage/blob-store.ts";

/**
 * The STREAMING_URL (spec 6.1): /v1/live/{token}, a page that shows the run's browser as it works
 * (the newest frame, refreshed every second, and the agent's latest purpose). The unguessable
 * token (32 base62 characters, ~190 bits) is the credential, like the peers' debugger URLs, so the
 * page can be opened in a browser without an API key. Because it is a bearer credential it ends with
 * the run: LIVE_VIEW_GRACE_MS (60 s) after the run ends every address under it answers 404 (the
 * service's liveView decides).
 */
export function mountLiveView(app: OpenAPIHono<AppEnv>, deps: { runs: RunService; blobs: BlobStore }): void {
  app.get("/v1/live/:token", async (c) => {
    const row = await deps.runs.liveView(c.req.param("token"));
    const nonce = randomBytes(16).toString("base64");
    for (const [name, value] of Object.entries(livePageHeaders(nonce))) c.header(name, value);
    return c.html(livePage(`Osprey live view · ${row.id}`, "The run's browser", nonce));
  });

  app.get("/v1/live/:token/frame", async (c) => {
    const row = await deps.runs.liveView(c.req.param("token"));
    const frame = await deps.blobs.get(liveFrameKey(row.id));
    if (!frame) throw new AppError("NOT_FOUND", "No frame yet: the run has not opened its browser.");
    return c.body(new Uint8Array(frame), 200, { "content-type": "image/jpeg", "cache-control": "no-store" });
  });

  app.get("/v1/live/:token/state", async (c) => {
    const state = await deps.runs.liveState(c.req.param("token"));
    c.header("cache-control", "no-store");
    return c.json(state);
  });
}
