import { z } from "zod";
import type { ScalingSettings } from "../scaler/scaling-policy.ts";
import { scalingSettingsProblem } from "../scaler/scaling-policy.ts";
import { emptyAsUndefined } from "./config-env.ts";

/**
 * The scaler function's settings (infra/ sets them; functions/entry/scaler.lambda.ts parses them on
 * its first invocation). The slot counts use the containers' own variable names, with their
 * defaults, so the deployment sets one value for both sides.
 */

const int = (min: number, max: number, fallback?: number) => {
  const n = z.coerce
    .number({ error: `must be an integer between ${min} and ${max}` })
    .int(`must be an integer between ${min} and ${max}`)
    .min(min, `must be an integer between ${min} and ${max}`)
    .max(max, `must be an integer between ${min} and ${max}`);
  return z.preprocess(emptyAsUndefined, fallback === undefined ? n : n.default(fallback));
};
const required = (what: string) => z.preprocess(emptyAsUndefined, z.string({ error: `is required (${what})` }));

const ScalerEnvSchema = z.object({
  OSPREY_SCALER_CLUSTER: required("the ECS cluster name"),
  OSPREY_SCALER_SERVICE: required("the ECS service name"),
  OSPREY_SQS_QUEUE_URL: z.preprocess(emptyAsUndefined, z.string({ error: "is required" }).refine(URL.canParse, "must be a URL")),
  AWS_REGION: z.preprocess(emptyAsUndefined, z.string().default("us-east-1")),
  OSPREY_SCALER_WARM_FLOOR: int(0, 1000, 0),
  OSPREY_SCALER_MAX_TASKS: int(1, 1000, 10),
  OSPREY_WORKER_CONCURRENCY: int(1, 64, 2),
  OSPREY_BROWSER_MAX_SESSIONS: int(1, 512, 16),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\/.+/.test(v) && URL.canParse(v), "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  OSPREY_LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(["debug", "info", "warn", "error"]).default("info")),
  OSPREY_DB_DRIVER: z.preprocess(emptyAsUndefined, z.enum(["neon", "pg"], { error: "must be neon or pg" }).default("neon")),
});

export interface ScalerConfig {
  cluster: string;
  service: string;
  queueUrl: string;
  region: string;
  settings: ScalingSettings;
  /** Open sessions are counted when set (the same database as the service). */
  databaseUrl: string | null;
  /** neon (WebSocket) or pg (TCP, RDS in the VPC), as the edge functions. */
  dbDriver: "neon" | "pg";
  logLevel: "debug" | "info" | "warn" | "error";
}

/** Parses the scaler's environment; throws one line naming the variable (never a database URL's value). */
export function scalerConfig(env: Record<string, string | undefined>): ScalerConfig {
  const parsed = ScalerEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid scaler configuration: ${String(issue?.path[0] ?? "environment")} ${issue?.message ?? "is invalid"}`);
  }
  const e = parsed.data;
  const settings: ScalingSettings = {
    runSlotsPerTask: e.OSPREY_WORKER_CONCURRENCY,
    sessionSlotsPerTask: e.OSPREY_BROWSER_MAX_SESSIONS,
    warmFloor: e.OSPREY_SCALER_WARM_FLOOR,
    maxTasks: e.OSPREY_SCALER_MAX_TASKS,
  };
  const problem = scalingSettingsProblem(settings);
  if (problem) throw new Error(`invalid scaler configuration: ${problem} (OSPREY_SCALER_WARM_FLOOR, OSPREY_SCALER_MAX_TASKS)`);
  return {
    cluster: e.OSPREY_SCALER_CLUSTER,
    service: e.OSPREY_SCALER_SERVICE,
    queueUrl: e.OSPREY_SQS_QUEUE_URL,
    region: e.AWS_REGION,
    settings,
    databaseUrl: e.DATABASE_URL ?? null,
    dbDriver: e.OSPREY_DB_DRIVER,
    logLevel: e.OSPREY_LOG_LEVEL,
  };
}

/** OSPREY_SCALER_FUNCTION on the agent function: the scaler to nudge after an enqueue (infra/ sets it); null: none. */
export function scalerNudgeFunction(env: Record<string, string | undefined>): string | null {
  const v = env.OSPREY_SCALER_FUNCTION?.trim();
  return v ? v : null;
}
