import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the ECS API on 127.0.0.1, speaking the AWS JSON 1.1 protocol the SDK uses
 * (POST /, `X-Amz-Target: AmazonEC2ContainerServiceV20141113.<Operation>`), for the operations the
 * scaler calls: DescribeServices, UpdateService, RunTask, ListTasks. It keeps one service and its
 * tasks on a clock the caller moves (the benchmark's simulated time, or real time), the way ECS
 * does: a task is PENDING for its start delay, then RUNNING; a desired count below the tasks makes
 * it stop pending tasks first, then running ones that are not protected (ECS task scale-in
 * protection: a busy worker holds it), never a protected one.
 */

const TARGET_PREFIX = "AmazonEC2ContainerServiceV20141113.";

export interface DoubleTask {
  arn: string;
  /** Service tasks have the service's group; standalone (RunTask) tasks carry startedBy. */
  group: "service" | "standalone";
  startedBy: string | null;
  createdAt: number;
  runningAt: number;
  stoppedAt: number | null;
}

export interface EcsDoubleOptions {
  cluster: string;
  service: string;
  /** Milliseconds on `now()`; defaults to real time. */
  now?: () => number;
  /** How long a new task is PENDING (provisioning, image pull, start); may vary per task. */
  startDelayMs?: (n: number) => number;
  /** Whether a running task may not be stopped by a lower desired count (busy). */
  isProtected?: (task: DoubleTask) => boolean;
  initialDesired?: number;
}

export interface EcsDouble {
  endpoint: string;
  /** Every request, in order: operation and parsed body. */
  calls: Array<{ op: string; body: Record<string, unknown> }>;
  tasks: DoubleTask[];
  desired(): number;
  /** Applies the clock: PENDING → RUNNING, and stops what the desired count no longer covers. */
  reconcile(): void;
  /** A task ends by itself (a standalone task's idle exit). */
  stopTask(arn: string): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startEcsDouble(opts: EcsDoubleOptions): Promise<EcsDouble> {
  const now = opts.now ?? Date.now;
  const startDelay = opts.startDelayMs ?? (() => 0);
  const isProtected = opts.isProtected ?? (() => false);
  const clusterArn = `arn:aws:ecs:us-east-1:000000000000:cluster/${opts.cluster}`;
  const serviceArn = `arn:aws:ecs:us-east-1:000000000000:service/${opts.cluster}/${opts.service}`;
  let desired = opts.initialDesired ?? 0;
  let seq = 0;
  const tasks: DoubleTask[] = [];
  const calls: EcsDouble["calls"] = [];

  const live = (group: DoubleTask["group"]) => tasks.filter((t) => t.group === group && t.stoppedAt === null);
  const newTask = (group: DoubleTask["group"], startedBy: string | null): DoubleTask => {
    const n = seq++;
    const at = now();
    const t: DoubleTask = {
      arn: `arn:aws:ecs:us-east-1:000000000000:task/${opts.cluster}/${n.toString(16).padStart(32, "0")}`,
      group,
      startedBy,
      createdAt: at,
      runningAt: at + Math.max(0, startDelay(n)),
      stoppedAt: null,
    };
    tasks.push(t);
    return t;
  };

  function reconcile(): void {
    const at = now();
    const svc = live("service");
    if (svc.length < desired) for (let i = svc.length; i < desired; i++) newTask("service", null);
    else if (svc.length > desired) {
      let excess = svc.length - desired;
      // Pending tasks first (newest first), then running tasks that are not protected.
      const pending = svc.filter((t) => t.runningAt > at).sort((a, b) => b.createdAt - a.createdAt);
      const idle = svc.filter((t) => t.runningAt <= at && !isProtected(t));
      for (const t of [...pending, ...idle]) {
        if (excess === 0) break;
        t.stoppedAt = at;
        excess--;
      }
    }
  }

  const serviceView = () => {
    reconcile();
    const at = now();
    const svc = live("service");
    return {
      serviceName: opts.service,
      serviceArn,
      clusterArn,
      status: "ACTIVE",
      launchType: "FARGATE",
      desiredCount: desired,
      runningCount: svc.filter((t) => t.runningAt <= at).length,
      pendingCount: svc.filter((t) => t.runningAt > at).length,
    };
  };

  const error = (res: ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { "content-type": "application/x-amz-json-1.1", "x-amzn-errortype": type });
    res.end(JSON.stringify({ __type: type, message }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const target = String(req.headers["x-amz-target"] ?? "");
    const op = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : "";
    const raw = await readBody(req);
    if (req.method !== "POST" || !op || !String(req.headers["content-type"] ?? "").includes("application/x-amz-json-1.1")) {
      return error(res, 400, "SerializationException", "expected POST with X-Amz-Target and application/x-amz-json-1.1");
    }
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
    calls.push({ op, body });
    const send = (out: unknown) => {
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      res.end(JSON.stringify(out));
    };
    const clusterOk = body.cluster === undefined || body.cluster === opts.cluster || body.cluster === clusterArn;
    if (!clusterOk) return error(res, 400, "ClusterNotFoundException", "Cluster not found.");
    switch (op) {
      case "DescribeServices": {
        const names = (body.services as string[] | undefined) ?? [];
        const found = names.filter((n) => n === opts.service || n === serviceArn);
        return send({
          services: found.length > 0 ? [serviceView()] : [],
          failures: names.filter((n) => !found.includes(n)).map((arn) => ({ arn, reason: "MISSING" })),
        });
      }
      case "UpdateService": {
        if (body.service !== opts.service && body.service !== serviceArn)
          return error(res, 400, "ServiceNotFoundException", "Service not found.");
        const n = body.desiredCount;
        if (n !== undefined) {
          if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
            return error(res, 400, "InvalidParameterException", "desiredCount must be a non-negative integer");
          desired = n;
        }
        return send({ service: serviceView() });
      }
      case "RunTask": {
        const count = typeof body.count === "number" ? body.count : 1;
        if (count < 1 || count > 10) return error(res, 400, "InvalidParameterException", "count must be between 1 and 10");
        if (!body.taskDefinition) return error(res, 400, "InvalidParameterException", "taskDefinition is required");
        const started = Array.from({ length: count }, () =>
          newTask("standalone", typeof body.startedBy === "string" ? body.startedBy : null),
        );
        return send({ tasks: started.map((t) => ({ taskArn: t.arn, lastStatus: "PROVISIONING", clusterArn })), failures: [] });
      }
      case "ListTasks": {
        reconcile();
        const status = (body.desiredStatus as string | undefined) ?? "RUNNING";
        const matching = tasks.filter(
          (t) =>
            (status === "STOPPED" ? t.stoppedAt !== null : t.stoppedAt === null) &&
            (body.startedBy === undefined || t.startedBy === body.startedBy) &&
            (body.serviceName === undefined || t.group === "service"),
        );
        return send({ taskArns: matching.map((t) => t.arn) });
      }
      default:
        return error(res, 400, "UnknownOperationException", `operation ${op} is not served by this double`);
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => error(res, 500, "ServerException", String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    tasks,
    desired: () => desired,
    reconcile,
    stopTask(arn) {
      const t = tasks.find((x) => x.arn === arn);
      if (t && t.stoppedAt === null) t.stoppedAt = now();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
