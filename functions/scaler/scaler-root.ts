import { ECSClient } from "@aws-sdk/client-ecs";
import { SQSClient } from "@aws-sdk/client-sqs";
import { type ScalerConfig, scalerConfig } from "../config/config-scaler.ts";
import { resolveSecretEnv } from "../config/secret-env.ts";
import { openDatabase } from "../db/open-database.ts";
import { createLogger } from "../lib/logger.ts";
import { sessionDemandRepo } from "../repos/session-demand.repo.ts";
import { ecsCapacity } from "./ecs-capacity.ts";
import { sqsQueueDemand } from "./queue-demand.ts";
import { createScaler, type Scaler, type Trigger } from "./scaler.ts";

/**
 * The scaler function's composition root: its settings and clients, built on the first invocation
 * and reused by warm ones. `endpoints` points the clients elsewhere (the tests' ECS double, fauxqs).
 */
export interface ScalerRootOptions {
  endpoints?: { ecs?: string; sqs?: string };
  credentials?: { accessKeyId: string; secretAccessKey: string };
  emit?: (line: string) => void;
}

export async function openScaler(
  env: Record<string, string | undefined>,
  opts: ScalerRootOptions = {},
): Promise<{ scaler: Scaler; config: ScalerConfig; close(): Promise<void> }> {
  const config = scalerConfig(await resolveSecretEnv(env));
  const logger = createLogger(config.logLevel);
  const common = { region: config.region, ...(opts.credentials ? { credentials: opts.credentials } : {}) };
  const ecs = new ECSClient({ ...common, ...(opts.endpoints?.ecs ? { endpoint: opts.endpoints.ecs } : {}) });
  const sqs = new SQSClient({ ...common, ...(opts.endpoints?.sqs ? { endpoint: opts.endpoints.sqs } : {}) });
  // One connection, closed when idle: the scaler asks one count a pass. Neon over a WebSocket, or
  // RDS over TCP from inside the VPC (OSPREY_DB_DRIVER=pg, infra `-c database=rds`).
  const pool = { max: 1, idleTimeoutMs: 10_000, connectTimeoutMs: 10_000 };
  const database = config.databaseUrl
    ? await openDatabase(
        config.dbDriver === "pg"
          ? { driver: "pg", url: config.databaseUrl }
          : { driver: "neon", url: config.databaseUrl, wsProxy: null },
        pool,
      )
    : null;
  const scaler = createScaler({
    ecs: ecsCapacity({ client: ecs, cluster: config.cluster, service: config.service }),
    queue: sqsQueueDemand(sqs, config.queueUrl),
    sessions: database ? sessionDemandRepo(database.db) : null,
    settings: config.settings,
    logger,
    service: config.service,
    emit: opts.emit ?? ((line) => process.stdout.write(line)),
  });
  return {
    scaler,
    config,
    async close() {
      ecs.destroy();
      sqs.destroy();
      await database?.close();
    },
  };
}

/** At most this many pending sessions per nudge: the front door sends 1; a larger number is clamped, never trusted to scale the fleet. */
export const MAX_PENDING_PER_NUDGE = 8;

/** The EventBridge schedule's event is a scheduled pass; the front door's `{trigger: "session"}` a session pass; anything else (the agent's nudge) an enqueue. */
export function triggerOf(event: unknown): Trigger {
  return passOf(event).trigger;
}

/** The pass an event asks for: its trigger, and for a session nudge the sessions pending (an integer, 1 to MAX_PENDING_PER_NUDGE; 1 when missing or malformed). */
export function passOf(event: unknown): { trigger: Trigger; pendingSessions: number } {
  const e = event as { source?: unknown; "detail-type"?: unknown; trigger?: unknown; pending?: unknown } | null;
  if (e?.source === "aws.events" || e?.["detail-type"] === "Scheduled Event") return { trigger: "schedule", pendingSessions: 0 };
  if (e?.trigger === "session") {
    const n = typeof e.pending === "number" && Number.isInteger(e.pending) ? e.pending : 1;
    return { trigger: "session", pendingSessions: Math.min(MAX_PENDING_PER_NUDGE, Math.max(1, n)) };
  }
  return { trigger: "enqueue", pendingSessions: 0 };
}
