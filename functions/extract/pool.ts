import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Extractor } from "../fetch/ports.ts";
import { extractHtml } from "./extract.ts";
import type { ExtractOptions, ExtractOutcome } from "./types.ts";

interface Task {
  id: number;
  html: string;
  opts: ExtractOptions;
  resolve(v: ExtractOutcome): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/** Extraction in the calling thread: for tests and for one-off tools. */
export const inlineExtractor: Extractor = { extract: async (html, opts) => extractHtml(html, opts) };

/**
 * Extraction off the event loop: a few worker threads, each taking one page at a time from a FIFO
 * queue, so a batch of large pages never holds up other requests. A task that runs past
 * `taskTimeoutMs` (pathological HTML) costs its worker, which is replaced.
 */
export function createExtractorPool(
  opts: { size?: number; taskTimeoutMs?: number } = {},
): Extractor & { close(): Promise<void> } {
  const size = opts.size ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  const taskTimeoutMs = opts.taskTimeoutMs ?? 30_000;
  const queue: Task[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = { worker: new Worker(new URL("./extract.worker.ts", import.meta.url)), task: null, timer: null };
    slot.worker.unref();
    slot.worker.on("message", (msg: { id: number; ok: boolean; value?: ExtractOutcome; error?: string }) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      finish(slot);
      if (msg.ok && msg.value) task.resolve(msg.value);
      else task.reject(new Error(msg.error ?? "extraction failed"));
    });
    slot.worker.on("error", (err) => replace(slot, err));
    slot.worker.on("exit", (code) => {
      if (!closed && slots.includes(slot)) replace(slot, new Error(`extraction worker exited with code ${code}`));
    });
    return slot;
  };

  const finish = (slot: Slot) => {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
    pump();
  };

  const replace = (slot: Slot, err: Error) => {
    const task = slot.task;
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    if (slot.timer) clearTimeout(slot.timer);
    void slot.worker.terminate();
    task?.reject(err);
    if (!closed) slots.push(spawn());
    pump();
  };

  const pump = () => {
    for (const slot of slots) {
      if (slot.task || queue.length === 0) continue;
      const task = queue.shift() as Task;
      slot.task = task;
      slot.timer = setTimeout(() => replace(slot, new Error("extraction took too long")), taskTimeoutMs);
      slot.worker.postMessage({ id: task.id, html: task.html, opts: task.opts });
    }
  };

  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    extract(html, opts) {
      if (closed) return Promise.reject(new Error("the extractor pool is closed"));
      return new Promise<ExtractOutcome>((resolve, reject) => {
        queue.push({ id: nextId++, html, opts, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error("the extractor pool is closed"));
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate()));
    },
  };
}
