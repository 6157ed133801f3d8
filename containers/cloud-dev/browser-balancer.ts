import { type AddressInfo, connect, createServer, type Socket } from "node:net";

/**
 * The load balancer in front of the browser containers, for `npm run dev:cloud`: what serves
 * {browser_url} in the cloud (websockets do not fit Lambda, so that surface is the containers
 * themselves). It works at the TCP level, so a plain request and a websocket upgrade (a CDP client)
 * pass alike: each connection goes to the next worker's browser port in turn, and stays there. A
 * worker whose port refuses (stopped, or being started again) is skipped for the next one, as a
 * load balancer skips an unhealthy target; when none accepts, the client gets a 503.
 *
 * A connection may land on a container that does not hold the session it names: the containers
 * route that themselves (containers/sessions/session-host.ts), as they must behind any balancer.
 */
export interface BalancerTarget {
  host: string;
  port: number;
}

export interface BrowserBalancer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A target that neither accepts nor refuses within this long is skipped. */
const CONNECT_TIMEOUT_MS = 3000;

const NO_TARGET_BODY = JSON.stringify({
  error: { code: "SERVICE_BUSY", message: "No browser container is accepting connections; try again shortly." },
});
const NO_TARGET = [
  "HTTP/1.1 503 Service Unavailable",
  "Content-Type: application/json",
  `Content-Length: ${Buffer.byteLength(NO_TARGET_BODY)}`,
  "Retry-After: 1",
  "Connection: close",
  "",
  NO_TARGET_BODY,
].join("\r\n");

export async function startBrowserBalancer(opts: {
  host: string;
  port: number;
  /** Read for each connection: the workers' browser ports. */
  targets: () => readonly BalancerTarget[];
  connectTimeoutMs?: number;
}): Promise<BrowserBalancer> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const open = new Set<Socket>();
  let next = 0;

  const track = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  };

  // Paused until a target accepts, so nothing the client sends first is read before it can be passed on.
  // Half-open both ways: a client that ends its side still gets the rest of the answer.
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    track(client);
    client.on("error", () => client.destroy());
    const targets = opts.targets();
    const first = next;
    next = (next + 1) % Math.max(targets.length, 1);

    const attempt = (tried: number) => {
      if (client.destroyed) return;
      const target = targets[(first + tried) % targets.length];
      if (tried >= targets.length || !target) {
        client.end(NO_TARGET);
        return;
      }
      const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
      track(upstream);
      const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), connectTimeoutMs);
      const skip = () => {
        clearTimeout(timer);
        upstream.destroy();
        attempt(tried + 1);
      };
      upstream.once("error", skip);
      upstream.once("connect", () => {
        clearTimeout(timer);
        upstream.off("error", skip);
        upstream.setNoDelay(true);
        client.setNoDelay(true);
        // Either side failing ends both at once; one closing in order ends the other once what it
        // sent is written (the pipes pass each end on; destroySoon also ends a peer left half-open).
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
        upstream.once("close", (hadError) => (hadError ? client.destroy() : client.destroySoon()));
        client.once("close", (hadError) => (hadError ? upstream.destroy() : upstream.destroySoon()));
        client.pipe(upstream);
        upstream.pipe(client);
      });
      client.once("close", () => {
        if (upstream.connecting) upstream.destroy();
      });
    };
    attempt(0);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
