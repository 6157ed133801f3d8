/**
 * A counting semaphore with a FIFO queue. A waiter whose signal aborts leaves the queue at once
 * (its slot is never taken), so a caller that gave up never holds a browser context.
 */
export interface Limiter {
  /** Resolves with a release function once a slot is free; rejects with the signal's reason. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Rejects every waiter (used by close). */
  rejectAll(reason: Error): void;
  readonly active: number;
  readonly queued: number;
}

interface Waiter {
  grant: () => void;
  fail: (reason: unknown) => void;
}

export function createLimiter(max: number): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const queue: Waiter[] = [];

  const releaser = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next) next.grant();
      else active--;
    };
  };

  return {
    get active() {
      return active;
    },
    get queued() {
      return queue.length;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < max) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          // The slot passes straight from the releasing holder to this waiter: `active` is unchanged.
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(releaser());
          },
          fail: (reason) => {
            signal?.removeEventListener("abort", onAbort);
            reject(reason);
          },
        };
        queue.push(waiter);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    rejectAll(reason) {
      for (const w of queue.splice(0)) w.fail(reason);
    },
  };
}

/** Resolves with `onAbort()` when the signal aborts first, else with `work`'s result. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => resolve(onAbort());
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
