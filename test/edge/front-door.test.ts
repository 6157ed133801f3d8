import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { ECSClient } from "@aws-sdk/client-ecs";
import { handle } from "hono/aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleSurface } from "../../functions/build/build-edge.ts";
import { createFrontDoor } from "../../functions/edge/front-door.ts";
import { BYPASS_HEADER, frontDoorApp, frontDoorSettings } from "../../functions/edge/front-door-app.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { lambdaNudge } from "../../functions/scaler/capacity-nudge.ts";
import { ecsCapacity } from "../../functions/scaler/ecs-capacity.ts";
import { createScaler } from "../../functions/scaler/scaler.ts";
import { passOf } from "../../functions/scaler/scaler-root.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { createServices } from "../../functions/services/index.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type EcsDouble, startEcsDouble } from "../helpers/ecs-double.ts";

/**
 * The session front door as the load balancer runs it: ALB events into hono/aws-lambda's `handle`,
 * the key checked against a real database (PGlite), in front of a real HTTP server on 127.0.0.1
 * that plays the load balancer and the containers (503 on the health path until a task of the ECS
 * double is RUNNING, then 200; it records what is forwarded), and the scaler reached through a
 * local Lambda Invoke endpoint that runs the real scaler pass against the ECS API double.
 */

const BYPASS = "bypass-0123456789abcdef-secret-value";
const CREDS = { accessKeyId: "test", secretAccessKey: "test" };
const TASK_START_MS = 600;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const listen = async (server: Server) => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
};
const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

/** The event an ALB sends a Lambda target (single-value headers, the default). */
function albEvent(method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}) {
  return {
    requestContext: {
      elb: { targetGroupArn: "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/osprey-door/abc" },
    },
    httpMethod: method,
    path,
    queryStringParameters: {},
    headers: {
      host: "d111111abcdef8.cloudfront.net",
      "x-forwarded-for": "203.0.113.7",
      "x-forwarded-proto": "http",
      "x-forwarded-port": "80",
      "x-osprey-origin": "stack-guid",
      "user-agent": "vitest",
      ...(opts.headers ?? {}),
    },
    body: opts.body ?? "",
    isBase64Encoded: false,
  };
}

interface AlbResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

describe("the session front door (ALB events, a local balancer + containers, the scaler on the ECS double)", () => {
  let database: TestDatabase;
  let key: string;
  let services: ReturnType<typeof createServices>;
  let ecs: EcsDouble;
  let ecsClient: ECSClient;
  let balancer: Server;
  let balancerUrl: string;
  let lambda: Server;
  let lambdaUrl: string;
  const forwarded: Recorded[] = [];
  const probes: number[] = [];
  const invokes: string[] = [];
  /** The balancer's health answer: a RUNNING task of the double (what registering a target amounts to). */
  let alwaysDown = false;

  beforeAll(async () => {
    const pglite = driverCases(["pglite"])[0];
    if (!pglite) throw new Error("no PGlite");
    database = await pglite.open();
    services = createServices({ db: database.db, clock: systemClock, ids: defaultIds });
    key = (await ensureFirstAccount(services))?.key ?? "";
    balancer = createServer(async (req, res) => {
      const body = await readBody(req);
      if (req.headers[BYPASS_HEADER] !== BYPASS) return res.writeHead(403).end("Forbidden");
      ecs.reconcile();
      const up = !alwaysDown && ecs.tasks.some((t) => t.stoppedAt === null && t.runningAt <= Date.now());
      if (req.method === "GET" && req.url === "/healthz") {
        probes.push(Date.now());
        // An empty target group: the balancer's bare 503, no Osprey code behind it.
        if (!up)
          return res.writeHead(503, { "content-type": "text/html" }).end("<html>503 Service Temporarily Unavailable</html>");
        return res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      }
      if (!up) return res.writeHead(503, { "content-type": "text/html" }).end("<html>503</html>");
      forwarded.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      // What the containers answer to POST /: 201 with the session, or their 400 for a body that is not JSON.
      try {
        const input = body === "" ? {} : JSON.parse(body);
        res
          .writeHead(201, { "content-type": "application/json", "x-request-id": String(req.headers["x-request-id"] ?? "") })
          .end(JSON.stringify({ id: "sess_front_door", status: "active", echo: input }));
      } catch {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "INVALID_INPUT", message: "The request body is not valid JSON." } }));
      }
    });
    balancerUrl = await listen(balancer);
  });
  afterAll(async () => {
    balancer?.close();
    await database?.dispose();
  });

  const openScalerDouble = async (initialDesired: number) => {
    ecs = await startEcsDouble({
      cluster: "osprey",
      service: "osprey-browser",
      initialDesired,
      startDelayMs: () => TASK_START_MS,
    });
    ecs.reconcile();
    ecsClient = new ECSClient({ endpoint: ecs.endpoint, region: "us-east-1", credentials: CREDS });
    const scaler = createScaler({
      ecs: ecsCapacity({ client: ecsClient, cluster: "osprey", service: "osprey-browser" }),
      queue: { runs: async () => ({ queuedRuns: 0, runsInFlight: 0 }) },
      sessions: { openSessions: async () => 0 },
      settings: { runSlotsPerTask: 2, sessionSlotsPerTask: 8, warmFloor: 0, maxTasks: 10 },
      logger: silentLogger,
      service: "osprey-browser",
      emit: () => {},
    });
    // The Lambda Invoke API: an Event invoke answers 202 at once; the pass runs as the function would.
    lambda = createServer(async (req, res) => {
      const body = await readBody(req);
      invokes.push(body);
      res.writeHead(202).end();
      const { trigger, pendingSessions } = passOf(JSON.parse(body));
      await scaler.pass(trigger, pendingSessions);
      ecs.reconcile();
    });
    lambdaUrl = await listen(lambda);
  };
  afterEach(async () => {
    forwarded.length = 0;
    probes.length = 0;
    invokes.length = 0;
    alwaysDown = false;
    ecsClient?.destroy();
    await ecs?.close();
    lambda?.close();
  });

  const handlerFor = (waitMs: number) => {
    const door = createFrontDoor({
      origin: balancerUrl,
      bypass: { header: BYPASS_HEADER, value: BYPASS },
      healthPath: "/healthz",
      waitMs,
      probeEveryMs: 100,
      probeTimeoutMs: 1000,
      retryAfterSeconds: 5,
      logger: silentLogger,
      nudge: lambdaNudge(
        "osprey-scaler",
        "us-east-1",
        () => {},
        { endpoint: lambdaUrl, credentials: CREDS },
        {
          trigger: "session",
          pending: 1,
        },
      ),
    });
    const h = handle(frontDoorApp({ apiKeys: services.apiKeys, ids: defaultIds, logger: silentLogger, door }));
    return (event: ReturnType<typeof albEvent>) => h(event as never, {} as never) as Promise<AlbResult>;
  };
  const post = (body: string, headers: Record<string, string> = { "x-api-key": key }) =>
    albEvent("POST", "/", { headers: { "content-type": "application/json", ...headers }, body });
  const expectNoSecret = (res: AlbResult) => {
    expect(res.body).not.toContain(BYPASS);
    expect(JSON.stringify(res.headers)).not.toContain(BYPASS);
  };

  it("warm: one probe, then the request forwarded at once with the bypass header; the container's answer relayed", async () => {
    await openScalerDouble(1);
    await new Promise((r) => setTimeout(r, TASK_START_MS + 50));
    const handler = handlerFor(5000);
    const res = await handler(post(JSON.stringify({ timeout_minutes: 5 }), { "x-api-key": key, "x-client-thing": "kept" }));
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ id: "sess_front_door", status: "active", echo: { timeout_minutes: 5 } });
    expect(probes).toHaveLength(1);
    expect(invokes).toEqual([]);
    expect(forwarded).toHaveLength(1);
    const f = forwarded[0] as Recorded;
    expect(f).toMatchObject({ method: "POST", url: "/", body: '{"timeout_minutes":5}' });
    expect(f.headers).toMatchObject({
      [BYPASS_HEADER]: BYPASS,
      "x-api-key": key,
      "x-client-thing": "kept",
      "content-type": "application/json",
      "x-forwarded-host": "d111111abcdef8.cloudfront.net",
    });
    // The same request id on both sides.
    expect(res.headers["x-request-id"]).toBe(f.headers["x-request-id"]);
    expectNoSecret(res);
  });

  it("cold: nudges the scaler exactly once, waits for the task, then forwards; the client gets the container's 201", async () => {
    await openScalerDouble(0);
    const handler = handlerFor(10_000);
    const started = Date.now();
    const res = await handler(post("{}"));
    const waited = Date.now() - started;
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ id: "sess_front_door" });
    expect(invokes).toEqual(['{"trigger":"session","pending":1}']);
    expect(ecs.desired()).toBe(1);
    expect(ecs.calls.filter((c) => c.op === "UpdateService").map((c) => c.body.desiredCount)).toEqual([1]);
    expect(probes.length).toBeGreaterThan(2);
    expect(waited).toBeGreaterThanOrEqual(TASK_START_MS - 50);
    expect(forwarded).toHaveLength(1);
    expectNoSecret(res);
  });

  it("never ready: 503 SERVICE_BUSY with Retry-After after the bound, nothing forwarded", async () => {
    await openScalerDouble(0);
    alwaysDown = true;
    const handler = handlerFor(1200);
    const started = Date.now();
    const res = await handler(post("{}"));
    const waited = Date.now() - started;
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: "SERVICE_BUSY" } });
    expect(waited).toBeGreaterThanOrEqual(1200);
    expect(waited).toBeLessThan(4000);
    expect(invokes).toHaveLength(1);
    expect(forwarded).toEqual([]);
    expectNoSecret(res);
  });

  it("a balancer that does not answer at all is not ready either: 503, never a 500", async () => {
    await openScalerDouble(0);
    const door = createFrontDoor({
      origin: "http://127.0.0.1:1",
      bypass: { header: BYPASS_HEADER, value: BYPASS },
      healthPath: "/healthz",
      waitMs: 300,
      probeEveryMs: 100,
      probeTimeoutMs: 200,
      retryAfterSeconds: 5,
      logger: silentLogger,
      nudge: async () => {},
    });
    const h = handle(frontDoorApp({ apiKeys: services.apiKeys, ids: defaultIds, logger: silentLogger, door }));
    const res = (await h(post("{}") as never, {} as never)) as AlbResult;
    expect(res.statusCode).toBe(503);
    expectNoSecret(res);
  });

  it("no key or a wrong key: 401 at once, no probe, no nudge", async () => {
    await openScalerDouble(0);
    const handler = handlerFor(5000);
    const missing = await handler(post("{}", {}));
    expect(missing.statusCode).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: "MISSING_API_KEY" } });
    const wrong = await handler(post("{}", { "x-api-key": `${key.slice(0, -2)}xx` }));
    expect(wrong.statusCode).toBe(401);
    const garbage = await handler(post("{}", { "x-api-key": "\u00ff".repeat(300) }));
    expect(garbage.statusCode).toBe(401);
    expect(probes).toEqual([]);
    expect(invokes).toEqual([]);
    expect(ecs.desired()).toBe(0);
    expect(forwarded).toEqual([]);
  });

  it("bad input: a body over 1 MiB is refused 413 as the containers would (no probe, no nudge); a non-JSON body is forwarded and the container's 400 relayed", async () => {
    await openScalerDouble(1);
    await new Promise((r) => setTimeout(r, TASK_START_MS + 50));
    const handler = handlerFor(5000);
    const huge = await handler(post(`{"x":"${"a".repeat(1024 * 1024 + 10)}"}`));
    expect(huge.statusCode).toBe(413);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: "INVALID_INPUT" } });
    expect(probes).toEqual([]);
    const notJson = await handler(post("{not json"));
    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(notJson.body)).toMatchObject({ error: { code: "INVALID_INPUT" } });
    expect(forwarded.map((f) => f.body)).toEqual(["{not json"]);
    // A client that sends a bypass header of its own does not get it through as its value.
    const spoof = await handler(post("{}", { "x-api-key": key, [BYPASS_HEADER]: "guess" }));
    expect(spoof.statusCode).toBe(201);
    expect(forwarded.at(-1)?.headers[BYPASS_HEADER]).toBe(BYPASS);
    for (const r of [huge, notJson, spoof]) expectNoSecret(r);
  });

  it("settings: each missing or bad one names its variable, never the secret's value", () => {
    const ok = {
      OSPREY_FRONT_DOOR_ORIGIN: "http://osprey-123.us-east-1.elb.amazonaws.com",
      OSPREY_FRONT_DOOR_SECRET: BYPASS,
      OSPREY_SCALER_FUNCTION: "osprey-scaler",
    };
    expect(frontDoorSettings(ok)).toMatchObject({ waitMs: 45_000, probeEveryMs: 2000, healthPath: "/healthz" });
    expect(frontDoorSettings({ ...ok, OSPREY_FRONT_DOOR_WAIT_SECONDS: "20" }).waitMs).toBe(20_000);
    expect(() => frontDoorSettings({ ...ok, OSPREY_FRONT_DOOR_ORIGIN: "ftp://x" })).toThrow(/OSPREY_FRONT_DOOR_ORIGIN/);
    expect(() => frontDoorSettings({ ...ok, OSPREY_FRONT_DOOR_SECRET: "short" })).toThrow(/OSPREY_FRONT_DOOR_SECRET/);
    expect(() => frontDoorSettings({ ...ok, OSPREY_SCALER_FUNCTION: "" })).toThrow(/OSPREY_SCALER_FUNCTION/);
    expect(() => frontDoorSettings({ ...ok, OSPREY_FRONT_DOOR_WAIT_SECONDS: "0" })).toThrow(/WAIT_SECONDS/);
    try {
      frontDoorSettings({ ...ok, OSPREY_FRONT_DOOR_WAIT_SECONDS: "x" });
    } catch (err) {
      expect(String(err)).not.toContain(BYPASS);
    }
  });

  it("its bundle carries nothing the edge must not, and answers an ALB event without its settings with a 500 body, never a crash", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "osprey-front-door-"));
    try {
      const report = await bundleSurface("front-door", out);
      expect(report.forbidden).toEqual([]);
      const saved = { DATABASE_URL: process.env.DATABASE_URL, OSPREY_FRONT_DOOR_ORIGIN: process.env.OSPREY_FRONT_DOOR_ORIGIN };
      delete process.env.DATABASE_URL;
      delete process.env.OSPREY_FRONT_DOOR_ORIGIN;
      try {
        const { handler } = (await import(report.file)) as { handler: (e: unknown, c: unknown) => Promise<AlbResult> };
        const res = await handler(post("{}"), {});
        expect(res.statusCode).toBe(500);
        expect(JSON.parse(res.body)).toMatchObject({ error: { code: "INTERNAL_ERROR" } });
        expect(res.body).not.toContain("OSPREY_FRONT_DOOR");
      } finally {
        for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
