import { SQSClient } from "@aws-sdk/client-sqs";
import type { Config } from "../config/config.ts";
import { AppError } from "../lib/app-error.ts";
import { systemClock } from "../lib/clock.ts";
import { profileService } from "../profiles/profile.service.ts";
import { profileStore } from "../profiles/profile.store.ts";
import type { RunQueue } from "../queue/queue.ts";
import { unavailableQueue } from "../queue/queue.ts";
import { createSqsQueue } from "../queue/sqs-queue.ts";
import { buildRuns } from "../runs/build.ts";
import { runLifecycle } from "../runs/run-lifecycle.ts";
import { createRunNotifier } from "../runs/run-notifier.ts";
import { withCapacityNudge } from "../scaler/capacity-nudge.ts";
import { agentSurface } from "../surfaces/agent/agent.app.ts";
import { createKeyring } from "../vault/crypto.ts";
import { externalVaultProviders } from "../vault/providers/external.ts";
import { runCredentials } from "../vault/run-credentials.ts";
import { vaultService } from "../vault/vault.service.ts";
import type { EdgeRoot, EdgeSurfaceBuilder } from "./edge-root.ts";

/**
 * {agent_url} on AWS Lambda: account routes, automation runs and their readers. A run is inserted
 * and its id sent to SQS; the browser containers run it. Blocking `/run` and `/run-sse` stream
 * through the function URL, which ends an invocation at 15 minutes: they answer before that
 * (LAMBDA_RESPONSE_CAP_MS), `/run` with the run as it stands (poll GET /v1/runs/{id}), and the
 * stream simply ends. The run itself goes on in the browser containers either way.
 */

/** 14.5 minutes: the answer must be written before Lambda's 15-minute limit ends the invocation. */
export const LAMBDA_RESPONSE_CAP_MS = 870_000;

/** The SQS producer; its client is made on the first send, so a request that starts no run never builds it. */
function sqsProducer(queue: Extract<Config["queue"], { kind: "sqs" }>, root: EdgeRoot): RunQueue {
  let inner: RunQueue | null = null;
  const get = () => {
    inner ??= createSqsQueue({
      client: new SQSClient({ region: queue.region, ...(queue.endpoint ? { endpoint: queue.endpoint } : {}) }),
      queueUrl: queue.queueUrl,
      ...(queue.deadLetterQueueUrl ? { deadLetterQueueUrl: queue.deadLetterQueueUrl } : {}),
      logger: root.logger,
    });
    return inner;
  };
  return {
    description: `sqs ${queue.queueUrl}`,
    send: (body, opts) => get().send(body, opts),
    receive: (opts) => get().receive(opts),
    extend: (msg, ms) => get().extend(msg, ms),
    ack: (msg) => get().ack(msg),
    release: (msg, ms) => get().release(msg, ms),
    close: async () => inner?.close(),
  };
}

export const buildAgentSurface: EdgeSurfaceBuilder = (root) => {
  const { config } = root;
  const db = root.database.db;
  // The vault API needs the key that opens provider tokens (sync), and profiles the key that seals
  // their states: both are served with OSPREY_VAULT_KEY set.
  const key = config.vault.key;
  const keyring = key ? createKeyring(key, config.vault.previousKeys) : null;
  const store = keyring ? profileStore({ db, keyring, logger: root.logger }) : null;
  // Each enqueue also nudges the scaler (the fast path of issue [5 of 6]) where one is configured.
  const queue = withCapacityNudge(
    config.queue.kind === "sqs" ? sqsProducer(config.queue, root) : unavailableQueue("OSPREY_SQS_QUEUE_URL is not set"),
    root.capacityNudge,
  );
  const runs = buildRuns({
    // Its own notifier: the workers are other processes, so readers here poll.
    lifecycle: runLifecycle({ db: root.database.db, notifier: createRunNotifier(), publicUrl: root.publicUrl }),
    queue,
    blobs: root.blobs(),
    logger: root.logger,
    model: config.model,
    allowPrivateHosts: config.allowPrivateHosts,
    responseCapMs: LAMBDA_RESPONSE_CAP_MS,
    // Admission of use_vault reads the account's items only; values are opened by the browser containers.
    credentials: runCredentials({ db, keyring: null, providers: {} }),
    // use_profile admission resolves the profile; the browser containers load and save it.
    ...(store ? { profiles: store } : {}),
  });
  if (config.queue.kind !== "sqs") {
    // Refused before the run is inserted: a run that could never be queued is not created at all.
    const refuse = async (): Promise<never> => {
      throw new AppError(
        "SERVICE_BUSY",
        "Automation runs cannot be started on this deployment: its run queue is not configured (OSPREY_SQS_QUEUE_URL).",
      );
    };
    runs.service = { ...runs.service, create: refuse, createBatch: refuse };
  }
  const vault = keyring
    ? vaultService({ db, clock: systemClock, logger: root.logger, keyring, providers: externalVaultProviders() })
    : null;
  const profiles = store ? profileService({ db, clock: systemClock, store }) : null;
  return agentSurface(root.services, runs, vault, profiles);
};
