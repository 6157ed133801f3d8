import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const HEALTH_PATH = "/healthz";

export interface HealthState {
  /** False once the worker has begun to drain: the container is on its way out, not to be counted on. */
  accepting(): boolean;
  /** Shown in the body for whoever looks at it by hand. */
  details(): Record<string, unknown>;
}

export interface HealthEndpoint {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /healthz` for the browser container's HEALTHCHECK (containers/Dockerfile): 200 while the
 * worker takes runs, 503 while it drains after SIGTERM. It answers from the process's own state
 * and touches neither the database nor the queue: a database outage would otherwise mark every
 * container unhealthy at once and have them all replaced, which fixes nothing. A process whose event
 * loop is stuck does not answer at all, which the check's timeout turns into "unhealthy".
 */
export async function startHealthEndpoint(opts: { host: string; port: number; state: HealthState }): Promise<HealthEndpoint> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url !== HEALTH_PATH) {
      res.writeHead(404).end();
      return;
    }
    const ok = opts.state.accepting();
    const body = JSON.stringify({ status: ok ? "ok" : "draining", ...opts.state.details() });
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // The check must never keep a draining worker alive.
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
