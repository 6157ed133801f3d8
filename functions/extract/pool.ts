import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { extractHtml } from "./extract.ts";
import type { WorkerTask } from "./extract.worker.ts";
import { extractPdf, type PdfExtraction } from "./pdf.ts";
import { ExtractionLimitError, type ExtractOutcome, type Extractor } from "./types.ts";

type TaskBody = WorkerTask extends infer T ? (T extends WorkerTask ? Omit<T, "id"> : never) : never;

interface Task {
  id: number;
  body: TaskBody;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded the extractor (its first message): a task's time budget is its own. */
  ready: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/** How long after a worker that never started the next one is started. */
const RESPAWN_DELAY_MS = 1000;

/** Extraction in the calling thread: for tests and for one-off tools. */
export const inlineExtractor: Extractor = { extract: async (html, opts) => extractHtml(html, opts), pdf: extractPdf };

/**
 * Extraction (HTML and PDF) off the event loop: a few worker threads, each taking one page at a time from a FIFO
 * queue, so a batch of large pages never holds up other requests. A task that runs past
 * `taskTimeoutMs`, or whose worker runs out of heap (pathological HTML), costs its worker, which is
 * replaced, and rejects with `ExtractionLimitError`; the other tasks go on. A worker takes tasks
 * once it has loaded the extractor, so a task's budget is its own and not a new worker's start.
 *
 * The workers' heaps are not capped with `resourceLimits`: V8 stops a worker at its cap only on a
 * best-effort basis, and one large allocation past it aborts the whole process (nodejs/node#47224),
 * which is what a cap would be there to prevent. The extractor bounds a page's size instead
 * (MAX_ELEMENTS in extract.ts), with the fetch limit on its bytes.
 */
export function createExtractorPool(
  opts: {
    size?: number;
    taskTimeoutMs?: number;
    /** The worker module (extract.worker.ts beside this file). */
    workerUrl?: URL;
  } = {},
): Extractor & { close(): Promise<void> } {
  const size = opts.size ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  const taskTimeoutMs = opts.taskTimeoutMs ?? 30_000;
  const queue: Task[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = {
      worker: new Worker(opts.workerUrl ?? new URL("./extract.worker.ts", import.meta.url)),
      ready: false,
      task: null,
      timer: null,
    };
    slot.worker.unref();
    slot.worker.on("message", (msg: { ready?: true; id: number; ok: boolean; value?: unknown; error?: string }) => {
      if (msg.ready) {
        slot.ready = true;
        pump();
        return;
      }
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      finish(slot);
      if (msg.ok && msg.value !== undefined) task.resolve(msg.value);
      else task.reject(new Error(msg.error ?? "extraction failed"));
    });
    slot.worker.on("error", (err: Error & { code?: string }) =>
      replace(
        slot,
        err.code === "ERR_WORKER_OUT_OF_MEMORY" ? new ExtractionLimitError("memory", "extraction ran out of memory") : err,
      ),
    );
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
    if (closed) return;
    if (slot.ready) {
      slots.push(spawn());
      pump();
      return;
    }
    // A worker that died before it could take a task (its module failed to load): the pages waiting
    // are answered with why rather than left waiting for a worker that may never start, and the
    // next one is started a second later, not in a tight loop.
    const cause = new Error(`the extraction worker did not start: ${err.message}`);
    if (!slots.some((s) => s.ready)) for (const t of queue.splice(0)) t.reject(cause);
    setTimeout(() => {
      if (closed) return;
      slots.push(spawn());
      pump();
    }, RESPAWN_DELAY_MS).unref();
  };

  const pump = () => {
    for (const slot of slots) {
      if (!slot.ready || slot.task || queue.length === 0) continue;
      const task = queue.shift() as Task;
      slot.task = task;
      slot.timer = setTimeout(
        () => replace(slot, new ExtractionLimitError("time", `extraction took longer than ${taskTimeoutMs / 1000} s`)),
        taskTimeoutMs,
      );
      const message = { id: task.id, ...task.body } as WorkerTask;
      // PDF bytes are moved to the worker, not copied (they were copied out of the response first).
      slot.worker.postMessage(message, message.kind === "pdf" ? [message.bytes.buffer as ArrayBuffer] : []);
    }
  };

  for (let i = 0; i < size; i++) slots.push(spawn());

  const run = <T>(body: TaskBody): Promise<T> => {
    if (closed) return Promise.reject(new Error("the extractor pool is closed"));
    return new Promise<T>((resolve, reject) => {
      queue.push({ id: nextId++, body, resolve: resolve as (v: unknown) => void, reject });
      pump();
    });
  };

  return {
    extract: (html, opts) => run<ExtractOutcome>({ kind: "html", html, opts }),
    pdf: (bytes, opts) => run<PdfExtraction>({ kind: "pdf", bytes: new Uint8Array(bytes), opts }),
    async close() {
      closed = true;
      for (const task of queue.splice(0)) task.reject(new Error("the extractor pool is closed"));
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate()));
    },
  };
}
