import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { type BrowserBalancer, startBrowserBalancer } from "../../containers/cloud-dev/browser-balancer.ts";

/**
 * dev:cloud's stand-in for the load balancer in front of the browser containers: round-robin per
 * connection over the targets, a refusing target skipped, websocket upgrades passed through, a 503
 * when no target accepts. Two small HTTP+websocket servers on loopback stand in for the workers.
 */

interface Target {
  name: string;
  port: number;
  server: Server;
}

async function startTarget(name: string): Promise<Target> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => res.end(JSON.stringify({ name, method: req.method, url: req.url, body })));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => ws.on("message", (data) => ws.send(`${name}:${String(data)}`))),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { name, port: (server.address() as AddressInfo).port, server };
}

/** A port nothing listens on (taken, then given back). */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One request on its own connection (no keep-alive: the balancer picks per connection). */
function ask(url: string, body = ""): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body ? "POST" : "GET", agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the dev:cloud browser load balancer", () => {
  let a: Target;
  let b: Target;
  let down: number;
  const balancers: BrowserBalancer[] = [];
  const balancer = async (ports: number[]) => {
    const lb = await startBrowserBalancer({
      host: "127.0.0.1",
      port: 0,
      targets: () => ports.map((port) => ({ host: "127.0.0.1", port })),
    });
    balancers.push(lb);
    return lb;
  };

  beforeAll(async () => {
    [a, b, down] = await Promise.all([startTarget("a"), startTarget("b"), refusingPort()]);
  });

  afterAll(async () => {
    await Promise.all(balancers.map((lb) => lb.close()));
    for (const t of [a, b]) {
      t?.server.closeAllConnections();
      await new Promise((resolve) => t?.server.close(resolve));
    }
  });

  it("sends each connection to the next target in turn and skips one that refuses", async () => {
    const lb = await balancer([a.port, down, b.port]);
    const names: unknown[] = [];
    for (let i = 0; i < 6; i++) names.push((await ask(`${lb.url}/x?i=${i}`)).json.name);
    // a, (down → b), b, a, (down → b), b: every request answered, none by the refusing port.
    expect(names).toEqual(["a", "b", "b", "a", "b", "b"]);
    const posted = await ask(`${lb.url}/session`, JSON.stringify({ hello: "world" }));
    expect(posted).toMatchObject({ status: 200, json: { method: "POST", url: "/session", body: '{"hello":"world"}' } });
  });

  it("passes a websocket upgrade through, both ways", async () => {
    const lb = await balancer([b.port]);
    const ws = new WebSocket(`${lb.url.replace("http", "ws")}/s_1/cdp?token=t`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const echoed = new Promise<string>((resolve) => ws.once("message", (data) => resolve(String(data))));
    ws.send("ping");
    expect(await echoed).toBe("b:ping");
    const closed = new Promise((resolve) => ws.once("close", resolve));
    ws.close();
    await closed;
  });

  it("answers 503 SERVICE_BUSY when no target accepts", async () => {
    const lb = await balancer([down]);
    const res = await ask(`${lb.url}/`);
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { code: "SERVICE_BUSY" } });
  });
});
