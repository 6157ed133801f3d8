import { parentPort } from "node:worker_threads";
import { extractHtml } from "./extract.ts";
import type { ExtractOptions } from "./types.ts";

/** Runs extractHtml for the pool (pool.ts) in a worker thread, one task at a time. */
parentPort?.on("message", (msg: { id: number; html: string; opts: ExtractOptions }) => {
  try {
    parentPort?.postMessage({ id: msg.id, ok: true, value: extractHtml(msg.html, msg.opts) });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
