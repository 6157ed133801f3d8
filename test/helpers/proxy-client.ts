import http from "node:http";
import net from "node:net";

/**
 * A browser's side of an HTTP forward proxy, for the egress proxy tests: absolute-form requests,
 * CONNECT tunnels, and a canary listener that only counts who knocked.
 */

/** A TCP listener that only counts who knocked: nothing may ever reach it. */
export async function startCanary(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on("error", () => {});
    s.end("HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nCANARY-SECRET");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One request through the proxy in absolute form; `null` when the proxy closed the connection. */
export function viaProxy(proxy: { port: number }, url: string): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port: proxy.port, path: url, method: "GET", agent: false });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve(null));
    });
    req.on("error", () => resolve(null));
    req.end();
  });
}

/** A CONNECT; resolves with the proxy's status line and the socket (open after a 200). */
export function connectVia(proxy: { port: number }, authority: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: proxy.port, method: "CONNECT", path: authority, agent: false });
    req.on("connect", (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on("error", reject);
    req.end();
  });
}

/** Sends one HTTP/1.1 GET over an open tunnel and reads the whole answer (Connection: close). */
export function getOver(socket: net.Socket, host: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    socket.on("data", (d) => (data += d));
    socket.on("close", () => resolve(data));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}
