import { ECSClient } from "@aws-sdk/client-ecs";
import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scalerConfig, scalerNudgeFunction } from "../../functions/config/config-scaler.ts";
import { parseSecretEnv, resolveSecretEnv } from "../../functions/config/secret-env.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import type { RunQueue } from "../../functions/queue/queue.ts";
import { lambdaNudge, withCapacityNudge } from "../../functions/scaler/capacity-nudge.ts";
import { EcsServiceMissing, ecsCapacity } from "../../functions/scaler/ecs-capacity.ts";
import { createScaler, UTILIZATION_METRIC } from "../../functions/scaler/scaler.ts";
import { MAX_PENDING_PER_NUDGE, openScaler, passOf, triggerOf } from "../../functions/scaler/scaler-root.ts";
import {
  type Demand,
  fastPath,
  type ScalingSettings,
  scalingSettingsProblem,
  tasksNeeded,
  utilizationPercent,
} from "../../functions/scaler/scaling-policy.ts";
import { type EcsDouble, startEcsDouble } from "../helpers/ecs-double.ts";
import { type Fauxqs, startFauxqsServer } from "../helpers/fauxqs.ts";

const S: ScalingSettings = { runSlotsPerTask: 2, sessionSlotsPerTask: 8, warmFloor: 0, maxTasks: 50 };
const demand = (queuedRuns: number, runsInFlight = 0, openSessions: number | null = 0): Demand => ({
  queuedRuns,
  runsInFlight,
  openSessions,
});
const CREDS = { accessKeyId: "test", secretAccessKey: "test" };

describe("scaling policy", () => {
  it("needs the larger of the run and session counts, within the warm floor and the ceiling", () => {
    expect(tasksNeeded(demand(0), S)).toBe(0);
    expect(tasksNeeded(demand(1), S)).toBe(1);
    expect(tasksNeeded(demand(3, 2), S)).toBe(3);
    expect(tasksNeeded(demand(1, 0, 17), S)).toBe(3);
    expect(tasksNeeded(demand(0), { ...S, warmFloor: 2 })).toBe(2);
    expect(tasksNeeded(demand(1000), S)).toBe(50);
    // Unknown sessions (the database did not answer) count as none: runs still scale.
    expect(tasksNeeded(demand(4, 0, null), S)).toBe(2);
  });

  it("the fast path raises to an absolute target and never lowers", () => {
    expect(fastPath(demand(5), { desired: 0, running: 0, pending: 0 }, S)).toMatchObject({ action: "raise", from: 0, to: 3 });
    expect(fastPath(demand(5), { desired: 3, running: 1, pending: 2 }, S)).toMatchObject({ action: "none", needed: 3 });
    // Less demand than capacity: lowering is the steady path's work, never the fast path's.
    expect(fastPath(demand(0), { desired: 9, running: 9, pending: 0 }, S)).toMatchObject({ action: "none", needed: 0 });
    expect(fastPath(demand(1), { desired: 0, running: 0, pending: 0 }, { ...S, warmFloor: 1 })).toMatchObject({ to: 1 });
  });

  it("utilization is the demand over the running containers' slots (100 = full), and says 'more' from zero", () => {
    expect(utilizationPercent(demand(0), { desired: 2, running: 2, pending: 0 }, S)).toBe(0);
    expect(utilizationPercent(demand(2, 2), { desired: 2, running: 2, pending: 0 }, S)).toBe(100);
    expect(utilizationPercent(demand(1), { desired: 2, running: 2, pending: 0 }, S)).toBe(25);
    expect(utilizationPercent(demand(6), { desired: 0, running: 0, pending: 0 }, S)).toBe(300);
    expect(utilizationPercent(demand(0, 0, 12), { desired: 1, running: 1, pending: 0 }, S)).toBe(150);
  });

  it("checks its settings", () => {
    expect(scalingSettingsProblem(S)).toBeNull();
    expect(scalingSettingsProblem({ ...S, warmFloor: 51 })).toMatch(/warm floor/);
    expect(scalingSettingsProblem({ ...S, runSlotsPerTask: 0 })).toMatch(/run slots/);
  });
});

describe("scaler against the ECS API double", () => {
  let ecs: EcsDouble;
  let client: ECSClient;
  afterEach(async () => {
    client?.destroy();
    await ecs?.close();
  });
  const open = async (initialDesired = 0) => {
    ecs = await startEcsDouble({ cluster: "osprey", service: "osprey-browser", initialDesired });
    client = new ECSClient({ endpoint: ecs.endpoint, region: "us-east-1", credentials: CREDS });
    return ecsCapacity({ client, cluster: "osprey", service: "osprey-browser" });
  };

  it("raises the desired count from zero with UpdateService, over the SDK's JSON 1.1 calls", async () => {
    const capacity = await open();
    const lines: string[] = [];
    let queued = 5;
    const scaler = createScaler({
      ecs: capacity,
      queue: { runs: async () => ({ queuedRuns: queued, runsInFlight: 0 }) },
      sessions: { openSessions: async () => 0 },
      settings: S,
      logger: silentLogger,
      service: "osprey-browser",
      emit: (l) => lines.push(l),
      now: () => 1_700_000_000_000,
    });
    const pass = await scaler.pass("enqueue");
    expect(pass.decision).toMatchObject({ action: "raise", from: 0, to: 3 });
    expect(ecs.desired()).toBe(3);
    expect(ecs.calls.map((c) => c.op)).toEqual(["DescribeServices", "UpdateService"]);
    expect(ecs.calls[1]?.body).toEqual({ cluster: "osprey", service: "osprey-browser", desiredCount: 3 });
    // Enqueue passes publish no metric; the scheduled one does, as one embedded-metric line.
    expect(lines).toEqual([]);
    queued = 4;
    const again = await scaler.pass("schedule");
    expect(again.decision.action).toBe("none");
    expect(ecs.calls.map((c) => c.op)).toEqual(["DescribeServices", "UpdateService", "DescribeServices"]);
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0] ?? "{}");
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: "Osprey", Dimensions: [["ServiceName"]] });
    expect(emf).toMatchObject({ ServiceName: "osprey-browser", [UTILIZATION_METRIC]: 66.7 });
  });

  it('trigger "session" raises a zero service to 1: the pending session counts before it is in the database', async () => {
    const capacity = await open();
    const scaler = createScaler({
      ecs: capacity,
      queue: { runs: async () => ({ queuedRuns: 0, runsInFlight: 0 }) },
      sessions: { openSessions: async () => 0 },
      settings: S,
      logger: silentLogger,
      service: "osprey-browser",
      emit: () => {},
    });
    // Without the pending session the minute pass sees nothing to do: that is the gap the front door closes.
    expect((await scaler.pass("schedule")).decision.action).toBe("none");
    expect(ecs.desired()).toBe(0);
    const { trigger, pendingSessions } = passOf({ trigger: "session", pending: 1 });
    const pass = await scaler.pass(trigger, pendingSessions);
    expect(pass).toMatchObject({
      trigger: "session",
      demand: { openSessions: 1 },
      decision: { action: "raise", from: 0, to: 1 },
    });
    expect(ecs.desired()).toBe(1);
    // A second nudge for the same waiting request changes nothing (the target is absolute).
    expect((await scaler.pass("session", 1)).decision.action).toBe("none");
    expect(ecs.calls.filter((c) => c.op === "UpdateService").map((c) => c.body.desiredCount)).toEqual([1]);
  });

  it("a session nudge counts even when the database does not answer", async () => {
    const capacity = await open();
    const scaler = createScaler({
      ecs: capacity,
      queue: { runs: async () => ({ queuedRuns: 0, runsInFlight: 0 }) },
      sessions: {
        openSessions: async () => {
          throw new Error("database down");
        },
      },
      settings: S,
      logger: silentLogger,
      service: "osprey-browser",
      emit: () => {},
    });
    expect((await scaler.pass("session", 1)).decision).toMatchObject({ action: "raise", to: 1 });
    expect(ecs.desired()).toBe(1);
  });

  it("a burst of 100 concurrent nudges agrees on one target: no overshoot, the ceiling held", async () => {
    const capacity = await open();
    let queued = 0;
    const scaler = createScaler({
      ecs: capacity,
      queue: { runs: async () => ({ queuedRuns: queued, runsInFlight: 0 }) },
      sessions: null,
      settings: { ...S, maxTasks: 40 },
      logger: silentLogger,
      service: "osprey-browser",
      emit: () => {},
    });
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        queued++;
        await scaler.pass("enqueue");
      }),
    );
    expect(ecs.desired()).toBe(40);
    // Each raise is above the one before: a pass that read the queue early never lands after a later one.
    const raises = ecs.calls.filter((c) => c.op === "UpdateService").map((c) => c.body.desiredCount as number);
    expect(raises).toEqual([...raises].sort((a, b) => a - b));
    expect(new Set(raises).size).toBe(raises.length);
    expect(raises.at(-1)).toBe(40);
  });

  it("RunTask and ListTasks: standalone tasks tagged by startedBy (the alternative the benchmark compares)", async () => {
    ecs = await startEcsDouble({ cluster: "osprey", service: "osprey-browser" });
    client = new ECSClient({ endpoint: ecs.endpoint, region: "us-east-1", credentials: CREDS });
    const capacity = ecsCapacity({
      client,
      cluster: "osprey",
      service: "osprey-browser",
      runTask: { taskDefinition: "osprey-browser:3", subnets: ["subnet-1"], securityGroups: ["sg-1"], assignPublicIp: true },
    });
    const arns = await capacity.runTasks(12);
    expect(arns).toHaveLength(12);
    expect(ecs.calls.filter((c) => c.op === "RunTask").map((c) => c.body.count)).toEqual([10, 2]);
    expect(ecs.calls[0]?.body).toMatchObject({
      launchType: "FARGATE",
      startedBy: "osprey-scaler",
      networkConfiguration: { awsvpcConfiguration: { subnets: ["subnet-1"], assignPublicIp: "ENABLED" } },
    });
    ecs.stopTask(arns[0] ?? "");
    expect(await capacity.listStarted()).toHaveLength(11);
  });

  it("a missing service is an error naming it", async () => {
    ecs = await startEcsDouble({ cluster: "osprey", service: "other" });
    client = new ECSClient({ endpoint: ecs.endpoint, region: "us-east-1", credentials: CREDS });
    const capacity = ecsCapacity({ client, cluster: "osprey", service: "osprey-browser" });
    await expect(capacity.describe()).rejects.toThrow(EcsServiceMissing);
    await expect(capacity.describe()).rejects.toThrow(/osprey-browser.*MISSING/);
  });

  it("the double stops pending tasks first, then idle ones, never a protected (busy) one", async () => {
    let t = 0;
    const busy = new Set<string>();
    ecs = await startEcsDouble({
      cluster: "osprey",
      service: "osprey-browser",
      now: () => t,
      startDelayMs: () => 1000,
      isProtected: (task) => busy.has(task.arn),
      initialDesired: 3,
    });
    client = new ECSClient({ endpoint: ecs.endpoint, region: "us-east-1", credentials: CREDS });
    const capacity = ecsCapacity({ client, cluster: "osprey", service: "osprey-browser" });
    expect(await capacity.describe()).toEqual({ desired: 3, running: 0, pending: 3 });
    t = 1000;
    expect(await capacity.describe()).toEqual({ desired: 3, running: 3, pending: 0 });
    for (const task of ecs.tasks.slice(0, 2)) busy.add(task.arn);
    await capacity.setDesired(0);
    expect(await capacity.describe()).toEqual({ desired: 0, running: 2, pending: 0 });
    busy.clear();
    expect(await capacity.describe()).toEqual({ desired: 0, running: 0, pending: 0 });
  });
});

describe("the scaler function's root: settings, secrets, SQS counters (fauxqs)", () => {
  let sqs: Fauxqs;
  let ecs: EcsDouble;
  beforeAll(async () => {
    sqs = await startFauxqsServer();
    ecs = await startEcsDouble({ cluster: "osprey", service: "osprey-browser" });
  });
  afterAll(async () => {
    await sqs?.stop();
    await ecs?.close();
  });

  it("reads queued and in-flight runs from the queue and raises the service", async () => {
    const q = await sqs.createQueue();
    for (let i = 0; i < 5; i++)
      await sqs.client.send(
        new SendMessageCommand({ QueueUrl: q.queueUrl, MessageBody: JSON.stringify({ v: 1, run_id: `r${i}` }) }),
      );
    await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: q.queueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 60 }));
    const root = await openScaler(
      {
        OSPREY_SCALER_CLUSTER: "osprey",
        OSPREY_SCALER_SERVICE: "osprey-browser",
        OSPREY_SQS_QUEUE_URL: q.queueUrl,
        OSPREY_WORKER_CONCURRENCY: "2",
        OSPREY_SCALER_MAX_TASKS: "10",
      },
      { endpoints: { ecs: ecs.endpoint, sqs: sqs.server.address }, credentials: CREDS, emit: () => {} },
    );
    try {
      const pass = await root.scaler.pass(triggerOf({ source: "aws.events", "detail-type": "Scheduled Event" }));
      expect(pass.trigger).toBe("schedule");
      expect(pass.demand).toEqual({ queuedRuns: 4, runsInFlight: 1, openSessions: null });
      expect(pass.decision).toMatchObject({ action: "raise", to: 3 });
      expect(ecs.desired()).toBe(3);
    } finally {
      await root.close();
    }
  });

  it("settings: the slot counts share the containers' names; a bad value names its variable", () => {
    const base = { OSPREY_SCALER_CLUSTER: "c", OSPREY_SCALER_SERVICE: "s", OSPREY_SQS_QUEUE_URL: "https://sqs.example/q" };
    expect(scalerConfig({ ...base, OSPREY_BROWSER_MAX_SESSIONS: "8", OSPREY_SCALER_WARM_FLOOR: "1" }).settings).toEqual({
      runSlotsPerTask: 2,
      sessionSlotsPerTask: 8,
      warmFloor: 1,
      maxTasks: 10,
    });
    expect(() => scalerConfig({ ...base, OSPREY_SCALER_SERVICE: "" })).toThrow(/OSPREY_SCALER_SERVICE is required/);
    expect(() => scalerConfig({ ...base, OSPREY_SCALER_WARM_FLOOR: "11" })).toThrow(/warm floor must not exceed/);
    expect(() => scalerConfig({ ...base, DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL must be a postgres/);
  });

  it("secrets named in OSPREY_SECRET_ENV are read once each; a set variable is left alone", async () => {
    const arn = (n: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:osprey/${n}-AbCdEf`;
    const reads: string[] = [];
    const env = await resolveSecretEnv(
      { OSPREY_SECRET_ENV: `DATABASE_URL=${arn("db")}, OSPREY_VAULT_KEY=${arn("vault")}`, OSPREY_VAULT_KEY: "set" },
      async (id) => {
        reads.push(id);
        return `value-of-${id.split(":").at(-1)}`;
      },
    );
    expect(reads).toEqual([arn("db")]);
    expect(env.DATABASE_URL).toBe("value-of-osprey/db-AbCdEf");
    expect(env.OSPREY_VAULT_KEY).toBe("set");
    expect(() => parseSecretEnv("DATABASE_URL=not-an-arn")).toThrow(/bad entry/);
    await expect(
      resolveSecretEnv({ OSPREY_SECRET_ENV: `DATABASE_URL=${arn("db")}` }, async () => {
        throw Object.assign(new Error("denied"), { name: "AccessDeniedException" });
      }),
    ).rejects.toThrow(/cannot read DATABASE_URL .*AccessDeniedException/);
  });
});

describe("the scaler's events", () => {
  it("a session nudge is a session pass with 1 to MAX_PENDING_PER_NUDGE pending; the rest as before", () => {
    expect(passOf({ trigger: "session", pending: 1 })).toEqual({ trigger: "session", pendingSessions: 1 });
    expect(passOf({ trigger: "session" })).toEqual({ trigger: "session", pendingSessions: 1 });
    expect(passOf({ trigger: "session", pending: "9" })).toEqual({ trigger: "session", pendingSessions: 1 });
    expect(passOf({ trigger: "session", pending: 1.5 })).toEqual({ trigger: "session", pendingSessions: 1 });
    expect(passOf({ trigger: "session", pending: -3 })).toEqual({ trigger: "session", pendingSessions: 1 });
    expect(passOf({ trigger: "session", pending: 10_000 })).toEqual({
      trigger: "session",
      pendingSessions: MAX_PENDING_PER_NUDGE,
    });
    expect(passOf({ trigger: "enqueue" })).toEqual({ trigger: "enqueue", pendingSessions: 0 });
    expect(passOf(null)).toEqual({ trigger: "enqueue", pendingSessions: 0 });
    expect(passOf({ source: "aws.events", trigger: "session" })).toEqual({ trigger: "schedule", pendingSessions: 0 });
    expect(triggerOf({ trigger: "session" })).toBe("session");
  });
});

describe("the agent function's nudge", () => {
  it("invokes the scaler asynchronously after each send that succeeded; a failed nudge only reports", async () => {
    const { createServer } = await import("node:http");
    const invokes: Array<{ url: string; type: string | undefined; body: string }> = [];
    let status = 202;
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        invokes.push({ url: req.url ?? "", type: req.headers["x-amz-invocation-type"] as string | undefined, body });
        res.writeHead(status, { "content-type": "application/json" }).end(status === 202 ? "" : '{"message":"throttled"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const errors: unknown[] = [];
      const nudge = lambdaNudge("osprey-scaler", "us-east-1", (e) => errors.push(e), { endpoint, credentials: CREDS });
      const sent: string[] = [];
      const base = {
        description: "q",
        send: async (b: { run_id: string }) => {
          if (b.run_id === "bad") throw new Error("queue down");
          sent.push(b.run_id);
        },
      } as unknown as RunQueue;
      const queue = withCapacityNudge(base, nudge);
      await queue.send({ v: 1, run_id: "run_1" } as never);
      expect(sent).toEqual(["run_1"]);
      expect(invokes).toEqual([
        { url: "/2015-03-31/functions/osprey-scaler/invocations", type: "Event", body: '{"trigger":"enqueue"}' },
      ]);
      await expect(queue.send({ v: 1, run_id: "bad" } as never)).rejects.toThrow(/queue down/);
      expect(invokes).toHaveLength(1);
      status = 429;
      await queue.send({ v: 1, run_id: "run_2" } as never);
      expect(errors).toHaveLength(1);
      expect(withCapacityNudge(base, null)).toBe(base);
      expect(scalerNudgeFunction({ OSPREY_SCALER_FUNCTION: " osprey-scaler " })).toBe("osprey-scaler");
      expect(scalerNudgeFunction({})).toBeNull();
    } finally {
      server.close();
    }
  });
});
