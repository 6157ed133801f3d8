import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback origin server for render tests: routes by path, counts every request it receives
 * (so a test can prove a blocked URL was never asked for), and tracks open requests so hanging
 * responses are ended on close.
 */

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Origin {
  url: (path: string) => string;
  port: number;
  /** Every request path received, in order. */
  hits: string[];
  /** TCP connections accepted (a preconnect opens one without sending a request). */
  connections(): number;
  /** Resolves once `count` requests for `path` have arrived. */
  waitForHits(path: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOrigin(routes: Record<string, Handler> = {}): Promise<Origin> {
  const hits: string[] = [];
  const waiters: { path: string; count: number; resolve: () => void }[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(path);
    for (const w of waiters.slice()) {
      if (hits.filter((h) => h === w.path).length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    open.add(res);
    res.on("close", () => open.delete(res));
    const handler = routes[path];
    if (handler) return handler(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hits,
    connections: () => connections,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    waitForHits: (path, count) =>
      hits.filter((h) => h === path).length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ path, count, resolve })),
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const html =
  (body: string, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(body);
  };

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
