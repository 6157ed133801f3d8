import type { AllowedHost } from "../config/config.ts";
import { type ModelConfig, missingModelSettings } from "../config/model-settings.ts";
import type { Db } from "../db/db.ts";
import { type Clock, systemClock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { RunQueue } from "../queue/queue.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { type RunService, runService } from "./run.service.ts";
import { createRunNotifier, type RunNotifier } from "./run-notifier.ts";

export interface BuildRunsInput {
  db: Db;
  queue: RunQueue;
  blobs: BlobStore;
  logger: Logger;
  model: ModelConfig;
  allowPrivateHosts?: AllowedHost[];
  /** Base URL callers reach this service at; a function when it is known only once listening. */
  publicUrl: string | (() => string);
  /** Shared with an in-process worker so readers wake at once; a new one otherwise (readers then poll). */
  notifier?: RunNotifier;
  heartbeatMs?: number;
  /** When live views end (default: the system clock); the same clock as the services'. */
  clock?: Clock;
  /** See RunServiceDeps.responseCapMs (the edge sets it below Lambda's 15 minutes). */
  responseCapMs?: number;
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
    db: input.db,
    queue: input.queue,
    notifier: input.notifier ?? createRunNotifier(),
    blobs: input.blobs,
    logger: input.logger,
    modelMissing: missingModelSettings(input.model),
    allowPrivateHosts: input.allowPrivateHosts ?? [],
    publicUrl: typeof input.publicUrl === "string" ? () => input.publicUrl as string : input.publicUrl,
    clock: input.clock ?? systemClock,
    ...(input.responseCapMs === undefined ? {} : { responseCapMs: input.responseCapMs }),
  });
  return { service, blobs: input.blobs, heartbeatMs: input.heartbeatMs };
}
