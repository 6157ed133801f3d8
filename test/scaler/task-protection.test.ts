import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runsInFlight, taskAddress, taskProtection } from "../../containers/cloud/task-protection.ts";
import { ecsTaskConfig } from "../../functions/config/config-ecs.ts";
import { silentLogger } from "../../functions/lib/logger.ts";

/** A stand-in for the ECS agent's task protection endpoint and the task metadata endpoint v4. */
async function agentDouble(): Promise<{ url: string; puts: unknown[]; server: Server }> {
  const puts: unknown[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "PUT" && req.url === "/task-protection/v1/state") {
        const body = JSON.parse(raw);
        puts.push(body);
        res.end(JSON.stringify({ protection: { ProtectionEnabled: body.ProtectionEnabled, TaskArn: "arn:task" } }));
      } else if (req.method === "GET" && req.url === "/task") {
        res.end(JSON.stringify({ Containers: [{ Networks: [{ NetworkMode: "awsvpc", IPv4Addresses: ["10.0.3.17"] }] }] }));
      } else if (req.url === "/healthz") {
        res.end(JSON.stringify({ status: "ok", worker: "wrk_1", runs_in_flight: 2 }));
      } else {
        res.statusCode = 404;
        res.end("{}");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, puts, server };
}

describe("ECS task scale-in protection", () => {
  let server: Server | null = null;
  afterEach(() => server?.close());

  it("protects while busy, renews at half the expiry, gives it up only after the idle period", async () => {
    const agent = await agentDouble();
    server = agent.server;
    let t = 0;
    let busy = true;
    const p = taskProtection({
      agentUri: agent.url,
      busy: async () => busy,
      idleMs: 120_000,
      expiresMinutes: 60,
      pollMs: 3_600_000,
      logger: silentLogger,
      now: () => t,
    });
    try {
      await p.check();
      expect(p.state()).toBe(true);
      expect(agent.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 60 }]);
      t = 60_000;
      await p.check(); // still busy, protection fresh: no call
      expect(agent.puts).toHaveLength(1);
      t = 31 * 60_000;
      await p.check(); // renewed before it lapses
      expect(agent.puts).toHaveLength(2);
      busy = false;
      t += 119_000;
      await p.check(); // idle, but not long enough
      expect(p.state()).toBe(true);
      t += 1_000;
      await p.check();
      expect(p.state()).toBe(false);
      expect(agent.puts.at(-1)).toEqual({ ProtectionEnabled: false });
      busy = true;
      t += 1;
      await p.check(); // a run arrived: protected again at once
      expect(p.state()).toBe(true);
    } finally {
      p.stop();
    }
  });

  it("an unknown busy state counts as busy (never unprotects on an error)", async () => {
    const agent = await agentDouble();
    server = agent.server;
    let t = 0;
    const p = taskProtection({
      agentUri: agent.url,
      busy: async () => {
        throw new Error("database down");
      },
      idleMs: 0,
      pollMs: 3_600_000,
      logger: silentLogger,
      now: () => t,
    });
    try {
      await p.check();
      t = 10 * 60_000;
      await p.check();
      expect(agent.puts.every((b) => (b as { ProtectionEnabled: boolean }).ProtectionEnabled)).toBe(true);
    } finally {
      p.stop();
    }
  });

  it("reads the task's address, the worker's runs in flight, and its settings", async () => {
    const agent = await agentDouble();
    server = agent.server;
    expect(await taskAddress(agent.url)).toBe("10.0.3.17");
    expect(await runsInFlight(`${agent.url}/healthz`)).toBe(2);
    expect(ecsTaskConfig({ ECS_AGENT_URI: agent.url, OSPREY_IDLE_UNPROTECT_SECONDS: "30" })).toEqual({
      metadataUri: null,
      agentUri: agent.url,
      idleUnprotectMs: 30_000,
    });
    expect(() => ecsTaskConfig({ OSPREY_IDLE_UNPROTECT_SECONDS: "-1" })).toThrow(/OSPREY_IDLE_UNPROTECT_SECONDS/);
  });
});
