import type { AddressInfo } from "node:net";
import { createConnection } from "node:net";
import { WebSocketServer } from "ws";

/**
 * A WebSocket-to-TCP proxy like the one Neon runs in front of Postgres, so the
 * @neondatabase/serverless driver (OSPREY_NEON_WS_PROXY) reaches a plain Postgres on this machine.
 * Each WebSocket carries one Postgres connection; `?address=host:port` names the target, which
 * must be a loopback address (a local development aid, not an open relay).
 */
export interface NeonWsProxy {
  /** The value for OSPREY_NEON_WS_PROXY: `127.0.0.1:<port>/v2`. */
  url: string;
  close(): Promise<void>;
}

export async function startNeonWsProxy(opts: { port?: number } = {}): Promise<NeonWsProxy> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: opts.port ?? 0 });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", () => resolve());
    wss.once("error", reject);
  });
  wss.on("connection", (ws, req) => {
    const address = new URL(req.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    const match = /^(127\.0\.0\.1|localhost):(\d+)$/.exec(address);
    if (!match) {
      ws.close(1008, "target not allowed");
      return;
    }
    const socket = createConnection({ host: "127.0.0.1", port: Number(match[2]) });
    const pending: Buffer[] = [];
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      for (const chunk of pending.splice(0)) socket.write(chunk);
    });
    ws.on("message", (data: Buffer) => {
      if (connected) socket.write(data);
      else pending.push(data);
    });
    socket.on("data", (chunk) => ws.send(chunk));
    socket.on("close", () => ws.close());
    socket.on("error", () => ws.close());
    ws.on("close", () => socket.destroy());
    ws.on("error", () => socket.destroy());
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `127.0.0.1:${port}/v2`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
