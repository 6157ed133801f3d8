import { parentPort } from "node:worker_threads";
import { extractHtml } from "./extract.ts";
import { extractPdf } from "./pdf.ts";
import type { ExtractOptions } from "./types.ts";

export type WorkerTask =
  | { id: number; kind: "html"; html: string; opts: ExtractOptions }
  | { id: number; kind: "pdf"; bytes: Uint8Array; opts: { maxPages?: number; maxBytes?: number } };

/** Runs extraction for the pool (pool.ts) in a worker thread, one task at a time. */
parentPort?.on("message", async (msg: WorkerTask) => {
  try {
    const value = msg.kind === "html" ? extractHtml(msg.html, msg.opts) : await extractPdf(msg.bytes, msg.opts);
    parentPort?.postMessage({ id: msg.id, ok: true, value });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});

// Loaded: the pool starts a task's time budget only now, so a new worker's start is not charged to it.
parentPort?.postMessage({ ready: true });
