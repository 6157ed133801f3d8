import type { AllowedHost } from "../config/config.ts";
import { type ModelConfig, missingModelSettings } from "../config/model-settings.ts";
import { type Clock, systemClock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { ProfileStore } from "../profiles/profile.types.ts";
import type { RunQueue } from "../queue/queue.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import type { RunCredentials } from "../vault/run-credentials.ts";
import { type RunService, runService } from "./run.service.ts";
import type { RunLifecycle } from "./run-lifecycle.ts";

export interface BuildRunsInput {
  /** The process's one run lifecycle, shared with an in-process worker so readers wake at once. */
  lifecycle: RunLifecycle;
  queue: RunQueue;
  blobs: BlobStore;
  logger: Logger;
  model: ModelConfig;
  allowPrivateHosts?: AllowedHost[];
  heartbeatMs?: number;
  /** When live views end (default: the system clock); the same clock as the services'. */
  clock?: Clock;
  /** See RunServiceDeps.responseCapMs (the edge sets it below Lambda's 15 minutes). */
  responseCapMs?: number;
  /** The vault's run side (admission of credential_item_ids); absent refuses use_vault with 403. */
  credentials?: RunCredentials;
  /** Browser Context Profiles (use_profile admission); absent: no profile exists. */
  profiles?: Pick<ProfileStore, "resolve">;
}

/** What the agent surface is given to serve runs. */
export interface RunsApi {
  service: RunService;
  blobs: BlobStore;
  heartbeatMs?: number;
}

/** The edge side of runs: the service the automation routes call, from validated configuration. */
export function buildRuns(input: BuildRunsInput): RunsApi {
  const service = runService({
    lifecycle: input.lifecycle,
    queue: input.queue,
    blobs: input.blobs,
    logger: input.logger,
    modelMissing: missingModelSettings(input.model),
    allowPrivateHosts: input.allowPrivateHosts ?? [],
    clock: input.clock ?? systemClock,
    ...(input.responseCapMs === undefined ? {} : { responseCapMs: input.responseCapMs }),
    ...(input.credentials ? { credentials: input.credentials } : {}),
    ...(input.profiles ? { profiles: input.profiles } : {}),
  });
  return { service, blobs: input.blobs, heartbeatMs: input.heartbeatMs };
}
