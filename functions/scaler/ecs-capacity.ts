import {
  DescribeServicesCommand,
  type ECSClient,
  ListTasksCommand,
  RunTaskCommand,
  UpdateServiceCommand,
} from "@aws-sdk/client-ecs";
import type { Capacity } from "./scaling-policy.ts";

/**
 * The ECS calls the scaler makes, over `@aws-sdk/client-ecs` (the Lambda runtime ships it; the
 * bundle leaves `@aws-sdk/*` out). The service path (DescribeServices, UpdateService) is what the
 * deployment uses; RunTask and ListTasks serve the standalone-task alternative the benchmark
 * compares it with (README, "Deploy to AWS").
 */
export interface EcsCapacity {
  /** The service's desired, running and pending counts. */
  describe(): Promise<Capacity>;
  /** Sets the service's desired count (an absolute value: repeating it changes nothing). */
  setDesired(count: number): Promise<void>;
  /** Starts `count` standalone tasks of the service's task definition, tagged startedBy; returns their ARNs. */
  runTasks(count: number): Promise<string[]>;
  /** Standalone tasks this scaler started that are not stopped (ListTasks by startedBy). */
  listStarted(): Promise<string[]>;
}

export interface EcsCapacityOptions {
  client: ECSClient;
  cluster: string;
  service: string;
  /** For RunTask: the task definition, subnets and security groups the service uses. */
  runTask?: { taskDefinition: string; subnets: string[]; securityGroups: string[]; assignPublicIp: boolean };
  /** ListTasks/RunTask startedBy tag (at most 36 characters). */
  startedBy?: string;
}

export class EcsServiceMissing extends Error {
  override name = "EcsServiceMissing";
}

export function ecsCapacity(opts: EcsCapacityOptions): EcsCapacity {
  const { client, cluster, service } = opts;
  const startedBy = opts.startedBy ?? "osprey-scaler";
  return {
    async describe() {
      const out = await client.send(new DescribeServicesCommand({ cluster, services: [service] }));
      const s = out.services?.[0];
      if (!s || s.status === "INACTIVE") {
        const why = out.failures?.[0]?.reason ?? s?.status ?? "not found";
        throw new EcsServiceMissing(`ECS service ${service} in cluster ${cluster}: ${why}`);
      }
      return { desired: s.desiredCount ?? 0, running: s.runningCount ?? 0, pending: s.pendingCount ?? 0 };
    },
    async setDesired(count) {
      await client.send(new UpdateServiceCommand({ cluster, service, desiredCount: count }));
    },
    async runTasks(count) {
      const rt = opts.runTask;
      if (!rt) throw new Error("runTasks needs the task definition and network settings (runTask option)");
      const arns: string[] = [];
      // RunTask starts at most 10 tasks per call.
      for (let left = count; left > 0; left -= 10) {
        const out = await client.send(
          new RunTaskCommand({
            cluster,
            taskDefinition: rt.taskDefinition,
            count: Math.min(10, left),
            launchType: "FARGATE",
            startedBy,
            networkConfiguration: {
              awsvpcConfiguration: {
                subnets: rt.subnets,
                securityGroups: rt.securityGroups,
                assignPublicIp: rt.assignPublicIp ? "ENABLED" : "DISABLED",
              },
            },
          }),
        );
        for (const t of out.tasks ?? []) if (t.taskArn) arns.push(t.taskArn);
        if (out.failures?.length) throw new Error(`RunTask: ${out.failures.map((f) => f.reason).join("; ")}`);
      }
      return arns;
    },
    async listStarted() {
      const arns: string[] = [];
      let nextToken: string | undefined;
      do {
        const out = await client.send(new ListTasksCommand({ cluster, startedBy, desiredStatus: "RUNNING", nextToken }));
        arns.push(...(out.taskArns ?? []));
        nextToken = out.nextToken;
      } while (nextToken);
      return arns;
    },
  };
}
