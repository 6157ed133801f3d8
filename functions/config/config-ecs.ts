import { z } from "zod";
import { emptyAsUndefined } from "./config-env.ts";

/**
 * What ECS tells a task about itself (set by the ECS agent on Fargate platform 1.4+), and the
 * deployment's idle setting, for the browser container's launcher (containers/cloud/ecs-worker.ts).
 * Reads no environment itself: the launcher passes processEnvironment() in.
 */
const EcsEnvSchema = z.object({
  /** Task metadata endpoint v4: the task's private address. */
  ECS_CONTAINER_METADATA_URI_V4: z.preprocess(emptyAsUndefined, z.string().refine(URL.canParse, "must be a URL").optional()),
  /** The ECS agent endpoint: task scale-in protection. */
  ECS_AGENT_URI: z.preprocess(emptyAsUndefined, z.string().refine(URL.canParse, "must be a URL").optional()),
  OSPREY_IDLE_UNPROTECT_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: "must be an integer between 0 and 86400" })
      .int("must be an integer between 0 and 86400")
      .min(0, "must be an integer between 0 and 86400")
      .max(86_400, "must be an integer between 0 and 86400")
      .default(120),
  ),
});

export interface EcsTaskConfig {
  metadataUri: string | null;
  agentUri: string | null;
  /** A task idle this long gives up its scale-in protection. */
  idleUnprotectMs: number;
}

export function ecsTaskConfig(env: Record<string, string | undefined>): EcsTaskConfig {
  const parsed = EcsEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid configuration: ${String(issue?.path[0] ?? "environment")} ${issue?.message ?? "is invalid"}`);
  }
  const e = parsed.data;
  return {
    metadataUri: e.ECS_CONTAINER_METADATA_URI_V4 ?? null,
    agentUri: e.ECS_AGENT_URI ?? null,
    idleUnprotectMs: e.OSPREY_IDLE_UNPROTECT_SECONDS * 1000,
  };
}
