import { EventEmitter } from "node:events";

/**
 * Wakes readers of a run (blocking /run, /run-sse, cancel) when its row or events change. In one
 * process the worker notifies directly; across processes (a worker elsewhere, the cloud) readers
 * fall back to polling, so `wait` always returns by `maxMs`.
 */
export interface RunNotifier {
  notify(runId: string): void;
  /** Resolves on the next notify for `runId`, after `maxMs`, or when `signal` aborts. */
  wait(runId: string, maxMs: number, signal?: AbortSignal): Promise<void>;
}

export function createRunNotifier(): RunNotifier {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    notify: (runId) => {
      emitter.emit(runId);
    },
    wait(runId, maxMs, signal) {
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          emitter.off(runId, done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, maxMs);
        emitter.on(runId, done);
        signal?.addEventListener("abort", done, { once: true });
      });
    },
  };
}
