import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Resolver } from "../../functions/net/address-policy.ts";

export interface Origin {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url: (path?: string) => string;
  /** TCP connections accepted so far. */
  connections: () => number;
  /** Request paths seen, in order, with their Host header. */
  requests: { path: string; host: string | undefined; headers: http.IncomingHttpHeaders }[];
  close: () => Promise<void>;
}

/** An origin server on 127.0.0.1 (a random port) that counts every connection it accepts. */
export async function startOrigin(handler: http.RequestListener = (_req, res) => res.end("ok")): Promise<Origin> {
  let connections = 0;
  const requests: Origin["requests"] = [];
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? "", host: req.headers.host, headers: req.headers });
    handler(req, res);
  });
  server.on("connection", () => {
    connections++;
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = "/") => `http://127.0.0.1:${port}${path}`,
    connections: () => connections,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A resolver stub that records every name it is asked; answers may change from call to call. */
export function stubResolver(answers: Record<string, string[] | ((call: number) => string[])>): {
  resolver: Resolver;
  calls: string[];
} {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    const entry = answers[hostname];
    const list = typeof entry === "function" ? entry(calls.filter((c) => c === hostname).length) : entry;
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolver, calls };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}
