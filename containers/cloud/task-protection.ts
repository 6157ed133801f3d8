import type { Logger } from "../../functions/lib/logger.ts";

/**
 * ECS task scale-in protection for a browser container: what makes "drain idle containers, never
 * kill a run" hold when the desired count goes down. While the worker has a run in flight or holds
 * a browser session the task is protected, and neither a lower desired count (target tracking, a
 * manual change) nor a deployment stops it; once it has been idle for `idleMs` it gives protection
 * up, and ECS may pick it. A stopped task gets SIGTERM and the worker drains (containers/local/
 * worker-main.ts): with nothing in flight it exits at once.
 *
 * The protection expires by itself (`expiresMinutes`, renewed at half of it), so a worker whose
 * event loop hangs does not pin a task for ever. The endpoint is the ECS agent's
 * `PUT $ECS_AGENT_URI/task-protection/v1/state` (task role: ecs:UpdateTaskProtection).
 */

export interface TaskProtectionOptions {
  agentUri: string;
  /** Whether the container has a run in flight or a session open now. */
  busy: () => Promise<boolean>;
  idleMs: number;
  pollMs?: number;
  expiresMinutes?: number;
  logger: Logger;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface TaskProtection {
  /** The protection as last set (null before the first call). */
  state(): boolean | null;
  /** One check, as the timer does it (tests drive it directly). */
  check(): Promise<void>;
  stop(): void;
}

export function taskProtection(opts: TaskProtectionOptions): TaskProtection {
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const expiresMinutes = opts.expiresMinutes ?? 60;
  const url = `${opts.agentUri.replace(/\/$/, "")}/task-protection/v1/state`;
  let enabled: boolean | null = null;
  let setAt = 0;
  let lastBusy = now();
  let timer: NodeJS.Timeout | null = null;
  let checking = false;

  async function put(on: boolean): Promise<void> {
    const res = await doFetch(url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(on ? { ProtectionEnabled: true, ExpiresInMinutes: expiresMinutes } : { ProtectionEnabled: false }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json().catch(() => ({}))) as { failure?: { Reason?: string }; error?: { Message?: string } };
    if (!res.ok || body.failure || body.error)
      throw new Error(`task protection ${on ? "on" : "off"}: ${res.status} ${body.failure?.Reason ?? body.error?.Message ?? ""}`);
    enabled = on;
    setAt = now();
  }

  async function check(): Promise<void> {
    const t = now();
    let busy: boolean;
    try {
      busy = await opts.busy();
    } catch (err) {
      // Unknown counts as busy: keeping an idle task a little longer costs less than stopping a busy one.
      opts.logger.warn("task protection: cannot tell whether the container is busy", { error: err });
      busy = true;
    }
    if (busy) lastBusy = t;
    try {
      if (busy && (enabled !== true || t - setAt >= (expiresMinutes * 60_000) / 2)) await put(true);
      else if (!busy && enabled !== false && t - lastBusy >= opts.idleMs) {
        await put(false);
        opts.logger.info("task protection off: the container is idle and may be scaled in", { idle_ms: t - lastBusy });
      }
    } catch (err) {
      opts.logger.warn("task protection: the ECS agent did not take the change", { error: err });
    }
  }

  timer = setInterval(() => {
    // One check at a time: a slow agent call is not stacked up by the next tick.
    if (checking) return;
    checking = true;
    void check().finally(() => {
      checking = false;
    });
  }, opts.pollMs ?? 5000);
  timer.unref();
  return {
    state: () => enabled,
    check,
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/** The task's private IPv4 address from the task metadata endpoint v4. */
export async function taskAddress(metadataUri: string, doFetch: typeof fetch = fetch): Promise<string> {
  const res = await doFetch(`${metadataUri.replace(/\/$/, "")}/task`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`task metadata: ${res.status}`);
  const task = (await res.json()) as { Containers?: Array<{ Networks?: Array<{ IPv4Addresses?: string[] }> }> };
  for (const c of task.Containers ?? [])
    for (const n of c.Networks ?? []) {
      const ip = n.IPv4Addresses?.[0];
      if (ip) return ip;
    }
  throw new Error("task metadata: no IPv4 address on the task's network");
}

/** The worker's runs in flight, from its own /healthz (containers/worker/health-endpoint.ts). */
export async function runsInFlight(healthUrl: string, doFetch: typeof fetch = fetch): Promise<number> {
  const res = await doFetch(healthUrl, { signal: AbortSignal.timeout(3000) });
  const body = (await res.json()) as { runs_in_flight?: unknown };
  if (typeof body.runs_in_flight !== "number") throw new Error("healthz: no runs_in_flight");
  return body.runs_in_flight;
}
