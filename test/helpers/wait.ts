/** Waiting on real processes and sockets in tests: poll a condition, never sleep a fixed time for it. */

/** Resolves with the probe's first truthy value; throws after `ms`. */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once the process is gone (a killed process is reaped asynchronously); false if it is still there after `ms`. */
export async function processGone(pid: number, ms = 5_000): Promise<boolean> {
  return waitFor(() => !processAlive(pid), ms).then(
    () => true,
    () => false,
  );
}
