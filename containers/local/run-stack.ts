import type { Config } from "../../functions/config/config.ts";
import type { Db } from "../../functions/db/db.ts";
import type { Extractor } from "../../functions/extract/types.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { profileStore } from "../../functions/profiles/profile.store.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import type { DeadLetterHandler, RunQueue } from "../../functions/queue/queue.ts";
import type { RunLifecycle } from "../../functions/runs/run-lifecycle.ts";
import type { BlobStore } from "../../functions/storage/blob-store.ts";
import type { Keyring } from "../../functions/vault/crypto.ts";
import { externalVaultProviders } from "../../functions/vault/providers/external.ts";
import { type RunCredentials, runCredentials } from "../../functions/vault/run-credentials.ts";
import { RunMessageSchema, runError } from "../../schema/runs.ts";
import { createModelProvider } from "../agent/model/create-provider.ts";
import { createRunBrowserPool } from "../browser/run-browser.ts";
import { BrowserUnavailableError, type RunBrowserPool } from "../browser/run-session.ts";
import { createWebhookDispatcher, type WebhookDispatcher } from "../webhooks/dispatcher.ts";
import { createRunWorker, type RunWorker } from "../worker/run-worker.ts";
import { detectChromium } from "./adapters.ts";
import { vaultKeyring } from "./vault-key.ts";

/** Deliveries of one run message before it is dead-lettered (and its run failed). */
export const MAX_RECEIVES = 5;

/**
 * A dead-lettered run message fails its run (SYSTEM_FAILURE), so no run is left PENDING or RUNNING
 * because its message could not be processed.
 */
export function deadLetterFailsRun(deps: { lifecycle: RunLifecycle; logger: Logger }): DeadLetterHandler {
  const { finish } = deps.lifecycle;
  return async (body, reason) => {
    const parsed = RunMessageSchema.safeParse(body);
    deps.logger.error("run message dead-lettered", { reason, run_id: parsed.success ? parsed.data.run_id : undefined });
    if (!parsed.success) return;
    await finish(
      parsed.data.run_id,
      "FAILED",
      null,
      runError("SERVICE_BUSY", `The run could not be processed (${reason}); start a new run.`, { retryAfter: 30 }),
    );
  };
}

/**
 * The configured queue adapter: the embedded Postgres table, or SQS (with a custom endpoint for
 * emulators). The AWS SDK loads only for SQS: a single machine's start does not pay for it.
 */
export async function createQueue(config: Config, db: Db, onDeadLetter: DeadLetterHandler, logger: Logger): Promise<RunQueue> {
  if (config.queue.kind === "sqs") {
    const [{ SQSClient }, { createSqsQueue }] = await Promise.all([
      import("@aws-sdk/client-sqs"),
      import("../../functions/queue/sqs-queue.ts"),
    ]);
    const client = new SQSClient({
      region: config.queue.region,
      ...(config.queue.endpoint ? { endpoint: config.queue.endpoint } : {}),
    });
    const inner = createSqsQueue({
      client,
      queueUrl: config.queue.queueUrl,
      deadLetterQueueUrl: config.queue.deadLetterQueueUrl ?? undefined,
      maxReceives: MAX_RECEIVES,
      onDeadLetter,
      logger,
    });
    return {
      ...inner,
      description: `sqs ${config.queue.queueUrl}`,
      async close() {
        await inner.close();
        client.destroy();
      },
    };
  }
  return createPgQueue({ db, maxReceives: MAX_RECEIVES, onDeadLetter, logger });
}

/** A browser pool that explains itself when no Chromium is installed. */
function browserPool(config: Config, logger: Logger): RunBrowserPool {
  const chromium = detectChromium(config);
  if (chromium.path) {
    return createRunBrowserPool({
      executablePath: chromium.path,
      maxConcurrency: config.workerConcurrency,
      allowPrivateHosts: config.allowPrivateHosts,
      logger,
    });
  }
  return {
    open: async () => {
      throw new BrowserUnavailableError(`${chromium.reason}; runs need Chromium`);
    },
    inspect: () => ({ launches: 0, active: 0, queued: 0, pid: null }),
    close: async () => {},
  };
}

export interface WorkerStack {
  worker: RunWorker;
  dispatcher: WebhookDispatcher;
  browsers: RunBrowserPool;
  start(): void;
  /** Drains runs for up to `drainMs`, stops webhooks, closes browsers. */
  stop(drainMs: number): Promise<void>;
}

/** The serverful side of runs in one process: the run worker, its browsers, the webhook dispatcher. */
export function createWorkerStack(input: {
  config: Config;
  db: Db;
  queue: RunQueue;
  lifecycle: RunLifecycle;
  blobs: BlobStore;
  extractor: Extractor;
  logger: Logger;
  /** The vault's run side; made here from the configuration when not given (osprey worker). */
  credentials?: RunCredentials;
  /** Browser Context Profiles; made here from the configuration when not given (osprey worker). */
  profiles?: ProfileStore | null;
}): WorkerStack {
  const { config, logger } = input;
  const browsers = browserPool(config, logger);
  const model = createModelProvider(config.model, { logger });
  const profiles = input.profiles === undefined ? workerProfiles(config, input.db, logger) : input.profiles;
  const worker = createRunWorker({
    lifecycle: input.lifecycle,
    queue: input.queue,
    browsers,
    model,
    extractor: input.extractor,
    blobs: input.blobs,
    logger,
    concurrency: config.workerConcurrency,
    leaseMs: config.runLeaseMs,
    vision: config.modelVision,
    credentials: input.credentials ?? workerCredentials(config, input.db),
    ...(profiles ? { profiles } : {}),
  });
  const dispatcher = createWebhookDispatcher({ db: input.db, logger, allowPrivateHosts: config.allowPrivateHosts });
  return {
    worker,
    dispatcher,
    browsers,
    start() {
      worker.start();
      dispatcher.start();
    },
    async stop(drainMs) {
      await worker.stop(drainMs);
      await Promise.allSettled([dispatcher.stop(), browsers.close()]);
    },
  };
}

/**
 * A worker's vault access. On one machine (the Postgres queue) the key is OSPREY_VAULT_KEY or the
 * data dir's key file, as for `npm start`. A cloud worker (SQS) has an ephemeral data dir, where a
 * fresh key file would open nothing: there only OSPREY_VAULT_KEY counts, and without it a fill
 * fails with a step error saying so (the run's other steps go on).
 */
function workerCredentials(config: Config, db: Db): RunCredentials {
  return runCredentials({ db, keyring: workerKeyring(config), providers: externalVaultProviders() });
}

function workerKeyring(config: Config): Keyring | null {
  return config.vault.key !== null || config.queue.kind !== "sqs" ? vaultKeyring(config) : null;
}

/**
 * A worker's Browser Context Profiles, sealed with the vault key (workerKeyring's rule); null in
 * the cloud without OSPREY_VAULT_KEY: use_profile runs then fail saying the worker cannot read them.
 */
export function workerProfiles(config: Config, db: Db, logger: Logger): ProfileStore | null {
  const keyring = workerKeyring(config);
  return keyring ? profileStore({ db, keyring, logger }) : null;
}
