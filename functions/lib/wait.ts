/**
 * Waits for `p` at most `ms` milliseconds: true when it settled in time, false when the time ran
 * out first. `p` is not cancelled; the timer is cleared as soon as the wait ends.
 * For the bounded waits on work that goes on without the caller: the index writes a fetch or a
 * search waits for, the feed draining at shutdown.
 */
export async function waitAtMost(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
