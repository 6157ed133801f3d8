import type { CDPSession, Page } from "puppeteer-core";
import type { Logger } from "../../functions/lib/logger.ts";
import { liveFrameKey, type RecordedFrame } from "../../functions/runs/run-artifacts.ts";
import { type BlobStore, contentKey } from "../../functions/storage/blob-store.ts";
import type { RunSession } from "../browser/run-session.ts";

/** At most this often a frame is written for the live view. */
const MIN_FRAME_INTERVAL_MS = 500;
/** How often the active tab is checked (the screencast follows it). */
const FOLLOW_MS = 500;

/**
 * The live view's frames (STREAMING_URL): a CDP screencast of the run's active tab, JPEG, written
 * to the blob store at most twice a second, so the live page shows the browser as it works, not
 * only between steps. Frames are acknowledged at once (Chromium sends the next only after an ack).
 * Failures only cost the live view, never the run.
 */
export function startLiveFrames(deps: {
  session: RunSession;
  blobs: BlobStore;
  runId: string;
  logger: Logger;
  /** capture_config.recording: also keep every written frame, in order, for the replay. */
  record?: boolean;
}): { stop(): Promise<RecordedFrame[]> } {
  const key = liveFrameKey(deps.runId);
  const started = Date.now();
  const recorded: RecordedFrame[] = [];
  let page: Page | null = null;
  let cdp: CDPSession | null = null;
  let lastWrite = 0;
  let pending: Buffer | null = null;
  let writing = false;
  let stopped = false;

  const flush = async () => {
    if (writing || !pending) return;
    const wait = MIN_FRAME_INTERVAL_MS - (Date.now() - lastWrite);
    if (wait > 0) {
      setTimeout(() => void flush(), wait).unref();
      return;
    }
    const frame = pending;
    pending = null;
    writing = true;
    lastWrite = Date.now();
    try {
      await deps.blobs.put(key, frame);
      if (deps.record) {
        const frameKey = contentKey(frame);
        await deps.blobs.put(frameKey, frame);
        recorded.push({ at: lastWrite - started, key: frameKey });
      }
    } catch (err) {
      deps.logger.debug("live frame not stored", { run_id: deps.runId, error: err });
    } finally {
      writing = false;
    }
    if (pending) void flush();
  };

  async function follow(next: Page): Promise<void> {
    const old = cdp;
    cdp = null;
    page = next;
    await old?.send("Page.stopScreencast").catch(() => {});
    await old?.detach().catch(() => {});
    if (stopped || next.isClosed()) return;
    const session = await next.createCDPSession();
    session.on("Page.screencastFrame", (f: { data: string; sessionId: number }) => {
      session.send("Page.screencastFrameAck", { sessionId: f.sessionId }).catch(() => {});
      pending = Buffer.from(f.data, "base64");
      void flush();
    });
    await session.send("Page.startScreencast", { format: "jpeg", quality: 50, maxWidth: 1280, maxHeight: 800 });
    cdp = session;
  }

  let following: Promise<void> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    let active: Page;
    try {
      active = deps.session.activePage();
    } catch {
      return;
    }
    if (active !== page && !active.isClosed()) {
      following = following
        .then(() => follow(active))
        .catch((err) => deps.logger.debug("live view screencast failed", { run_id: deps.runId, error: err }));
    }
  };
  tick();
  const timer = setInterval(tick, FOLLOW_MS);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await following;
      const last = cdp;
      cdp = null;
      await last?.send("Page.stopScreencast").catch(() => {});
      await last?.detach().catch(() => {});
      while (writing) await new Promise((r) => setTimeout(r, 10));
      return recorded;
    },
  };
}
